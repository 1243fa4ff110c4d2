"""Word lists the statement grammar (:mod:`plugins.extractors.claims`) classifies words with.

Kept apart from the grammar so the rules read as rules. Every list is lower case. The lists
are deliberately general (kinds of things people say about themselves), never phrases taken
from a test set: a word belongs here because of what it means, not because a sentence used it.
"""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """Return the set of the whitespace-separated words of a word list."""
    return frozenset(w.strip() for w in text.split() if w.strip())


# Who a person is to the speaker. Plural forms are added by :func:`relation_of`.
RELATIONS: frozenset[str] = words(
    """
    sister brother sibling mother mom mum mommy mummy father dad daddy parent stepmother
    stepfather stepmom stepdad stepsister stepbrother half-sister half-brother son daughter
    child kid baby stepson stepdaughter grandmother grandfather grandma grandpa granny
    grandparent grandson granddaughter grandchild grandkid aunt uncle cousin niece nephew
    mother-in-law father-in-law sister-in-law brother-in-law in-laws wife husband spouse
    partner boyfriend girlfriend fiance fiancee fiancé fiancée ex ex-wife ex-husband
    ex-boyfriend ex-girlfriend friend bff bestie roommate flatmate housemate neighbor
    neighbour boss manager supervisor colleague coworker co-worker teammate mentor therapist
    doctor dentist landlord landlady classmate teacher coach twin godmother godfather
    stepchild godson goddaughter gf bf hubby mate grandad granddad gran nan nana nanna grampa
    gramps mam toddler newborn mamma mamá mãe maman mutti mama papa pops
    kuya nani nanu dadi abuela abuelo abuelita abuelito nonna
    nonno babcia dziadek babu amma appa aunty auntie lad lass
    """
) | {"best friend", "best mate"}
PARTNER_RELATIONS: frozenset[str] = words(
    "wife husband spouse partner boyfriend girlfriend fiance fiancee fiancé fiancée gf bf hubby"
)
_PLURALS = {
    "children": "child",
    "kids": "kid",
    "parents": "parent",
    "siblings": "sibling",
    "grandparents": "grandparent",
    "grandchildren": "grandchild",
    "grandkids": "grandkid",
    "babies": "baby",
    "wives": "wife",
    "cousins": "cousin",
    "friends": "friend",
}

PETS: frozenset[str] = words(
    """
    dog puppy pup cat kitten kitty rabbit bunny hamster guinea-pig parrot bird budgie
    canary fish goldfish turtle tortoise snake lizard gecko iguana horse pony ferret rat
    mouse chicken chickens hen goat pig cockatiel hedgehog chinchilla axolotl dragon
    tabby moggy ragdoll sphynx calico tortie cockatoo macaw lovebird tarantula
    """
)
# Breeds of two words or more, as a regular expression's alternatives.
COMPOUND_BREEDS = (
    r"golden retriever|german shepherd|border collie|french bulldog|jack russell|cocker spaniel"
    r"|great dane|bernese mountain dog|maine coon|british shorthair|tabby cat|tuxedo cat"
)
DOG_BREEDS: frozenset[str] = words(
    """
    labrador lab retriever golden poodle beagle corgi husky pug dachshund bulldog terrier
    shepherd collie chihuahua spaniel greyhound whippet rottweiler boxer doodle labradoodle
    goldendoodle shiba schnauzer maltese pomeranian kelpie heeler cavoodle cockapoo cavapoo
    staffy staffie frenchie dalmatian doberman weimaraner vizsla akita samoyed malamute mastiff
    lurcher sheltie bichon pointer setter ridgeback basenji mutt westie yorkie cavalier
    """
)

VEHICLES: frozenset[str] = words(
    """
    car truck van suv motorbike motorcycle scooter bike bicycle e-bike ebike jeep minivan pickup
    sedan hatchback convertible camper rv
    """
)
CAR_BRANDS: frozenset[str] = words(
    """
    toyota honda ford tesla subaru bmw audi mercedes volkswagen vw volvo mazda nissan kia
    hyundai chevy chevrolet jeep prius civic corolla camry golf fiat peugeot renault skoda
    porsche lexus mini jaguar polestar rivian dacia lada proton perodua tata maruti mahindra
    geely byd chery opel vauxhall citroen mitsubishi isuzu daihatsu suzuki seat saab
    rav4 cr-v crv hr-v outback forester impreza crosstrek yaris hilux mustang tacoma tundra
    highlander accord passat tiguan octavia fabia qashqai tucson sportage elantra cx-5 cx5
    mazda3 wrangler landcruiser prado corsa astra sandero
    """
)
PHONES: frozenset[str] = words("iphone android pixel samsung galaxy oneplus blackberry")

DIETS: dict[str, str] = {
    "vegan": "vegan",
    "vegetarian": "vegetarian",
    "veggie": "vegetarian",
    "veg": "vegetarian",  # "pure veg", "not veg anymore" (as said in India)
    "pescatarian": "pescatarian",
    "pescetarian": "pescatarian",
    "keto": "keto",
    "paleo": "paleo",
    "carnivore": "carnivore",
    "omnivore": "omnivore",
    "gluten-free": "gluten-free",
    "dairy-free": "dairy-free",
    "plant-based": "plant-based",
    "kosher": "kosher",
    "halal": "halal",
}
# A diet and the habits that contradict it ("I eat meat again" ends being vegetarian).
_MEAT = frozenset(
    [
        "meat",
        "chicken",
        "beef",
        "pork",
        "steak",
        "steaks",
        "bacon",
        "ham",
        "lamb",
        "burgers",
        "burger",
        "sausage",
        "sausages",
        "currywurst",
        "bratwurst",
        "chorizo",
        "salami",
        "turkey",
        "veal",
        "venison",
        "salami",
        "pepperoni",
        "ribs",
        "brisket",
        "duck",
        "mutton",
        "ribeye",
        "sirloin",
        "t-bone",
        "filet",
        "chorizo",
        "prosciutto",
        "kebab",
        "shawarma",
        "pulled pork",
        "meatballs",
        "hot dog",
        "hotdog",
        "pastrami",
        "goat",
        "wagyu",
        "carnitas",
        "bulgogi",
    ]
)
_SEAFOOD = frozenset(
    [
        "fish",
        "seafood",
        "salmon",
        "tuna",
        "shrimp",
        "prawns",
        "shellfish",
        "cod",
        "crab",
        "lobster",
        "oysters",
        "mussels",
        "scallops",
        "squid",
        "calamari",
        "sashimi",
    ]
)
_ANIMAL_PRODUCE = frozenset(
    ["dairy", "cheese", "eggs", "egg", "milk", "butter", "yogurt", "yoghurt", "honey"]
)
DIET_EXCLUDES: dict[str, frozenset[str]] = {
    "vegan": _MEAT | _SEAFOOD | _ANIMAL_PRODUCE,
    "vegetarian": _MEAT | _SEAFOOD,
    "plant-based": _MEAT | _SEAFOOD | _ANIMAL_PRODUCE,
    "pescatarian": _MEAT,
}
ALCOHOL: frozenset[str] = words(
    """
    alcohol booze beer beers lager lagers ale ales pint pints wine wines vodka whisky whiskey
    gin rum tequila cocktail cocktails margarita margaritas champagne prosecco cider sake
    bourbon brandy mezcal shots
    """
)
_GLUTEN = frozenset(["gluten", "bread", "pasta", "pizza", "wheat", "noodles", "croissant"])
_DAIRY = frozenset(["dairy", "milk", "cheese", "butter", "yogurt", "yoghurt", "ice-cream", "cream"])
# What a condition rules out: "I drink milk every night" against "is lactose intolerant".
CONDITION_EXCLUDES: dict[str, frozenset[str]] = {
    "lactose": _DAIRY,
    "dairy": _DAIRY,
    "celiac": _GLUTEN,
    "coeliac": _GLUTEN,
    "gluten": _GLUTEN,
}
# What one eats or drinks, by the head noun: "had a great steak at dinner" is a meal, not a
# possession; "a couple of beers after work" is drinking.
DRINKS: frozenset[str] = ALCOHOL | words("coffee coffees espresso latte lattes tea soda coke milk")
FOOD_AND_DRINK: frozenset[str] = (
    _MEAT | _SEAFOOD | _ANIMAL_PRODUCE | _GLUTEN | _DAIRY | DRINKS | words("sushi curry")
)

CONDITIONS: frozenset[str] = words(
    """
    asthma diabetes adhd add autism depression anxiety migraines migraine arthritis
    eczema psoriasis epilepsy insomnia ibs crohn's celiac coeliac cancer covid long-covid
    hypertension scoliosis tinnitus dyslexia ptsd ocd bipolar fibromyalgia lupus gout
    endometriosis pcos sleep-apnea apnea vertigo anemia anaemia hypothyroidism allergies
    hay-fever concussion tendinitis sciatica shingles flu parkinson parkinson's alzheimer's
    alzheimers dementia ms copd glaucoma osteoporosis
    malaria dengue typhoid tuberculosis tb pneumonia bronchitis hepatitis hiv measles mumps
    chickenpox mono glandular-fever sinusitis tonsillitis gastritis ulcer ulcers kidney-stones
    gallstones prediabetes pre-diabetes cholesterol sepsis meningitis cholera lyme
    """
)
INJURIES: frozenset[str] = words(
    "broke broken sprained torn fractured dislocated injured hurt pulled twisted"
)

# Single words that name an occupation (suffix rules in :func:`is_occupation` add more).
OCCUPATIONS: frozenset[str] = words(
    """
    ward-sister charge-nurse sister-in-charge
    notary-public cabin-crew stonemason bailiff product-owner bellhop sound-tech stagehand roadie
    associate sommelier sergeant lieutenant captain colonel corporal commander admiral
    guide shepherd concierge maid deckhand foreman forewoman aide medic handyman warden rider
    rep lead executive intern apprentice
    reporter nanny au-pair rn lpn np emt cna doula postie postman postwoman binman carer
    pm swe sde sre dba gp exec
    nurse doctor physician surgeon dentist pharmacist paramedic midwife therapist
    psychologist psychiatrist counselor counsellor vet veterinarian chef cook baker
    butcher barista bartender waiter waitress server cashier teacher professor lecturer
    tutor librarian principal student intern lawyer attorney solicitor barrister judge
    paralegal accountant auditor analyst consultant engineer developer dev tester programmer coder
    architect designer artist painter sculptor photographer writer author journalist
    editor poet musician singer drummer guitarist pianist violinist composer dj producer
    actor actress dancer comedian model pilot flight-attendant steward stewardess driver
    trucker mechanic electrician plumber carpenter welder mason roofer painter gardener
    landscaper farmer rancher fisherman firefighter firefighter police officer cop
    detective soldier marine sailor veteran scientist researcher biologist chemist
    physicist mathematician statistician economist historian archaeologist geologist
    astronomer entrepreneur founder ceo cto cfo coo vp director manager supervisor
    administrator admin secretary receptionist assistant clerk banker trader broker
    realtor agent recruiter salesperson salesman saleswoman marketer copywriter
    translator interpreter social-worker caregiver carer nanny babysitter housekeeper
    cleaner janitor custodian security guard bouncer coach trainer instructor athlete
    footballer cricketer golfer swimmer runner cyclist boxer priest pastor minister rabbi
    imam monk nun chaplain optometrist radiologist anesthesiologist anaesthetist
    dietitian nutritionist physiotherapist physio chiropractor optician psychotherapist
    technician lab-tech hygienist sonographer surveyor planner strategist diplomat
    politician mayor senator councillor ambassador freelancer contractor tailor
    seamstress jeweler jeweller florist hairdresser hairstylist stylist barber
    beautician makeup-artist esthetician tattooist tattoo-artist animator illustrator
    cartoonist filmmaker director screenwriter podcaster streamer youtuber influencer
    blogger vlogger housewife homemaker stay-at-home retiree pensioner apprentice
    resident fellow postdoc phd dean registrar curator archivist zookeeper ranger
    lifeguard miner logger courier postman mailman postwoman dispatcher
    sysadmin devops webdev sparky chippy brickie sparkie actuary notary draftsman draughtsman
    vicar curate rector deacon vet-tech nail-tech
    fireman policeman policewoman cameraman camerawoman lineman linesman craftsman tradesman
    seaman stuntman doorman milkman dustman repairman deliveryman chairman missionary trainee
    pastry-chef sous-chef line-cook civil-servant public-servant
    """
)
_OCCUPATION_SUFFIXES = ("ologist", "ician", "ist", "eer", "smith", "wright")
_AGENT_SUFFIXES = ("er", "or")
# Words with an agent-like ending that are not occupations.
NOT_OCCUPATIONS: frozenset[str] = words(
    """
    better bitter later latter matter quarter sweater hamster monster twitter computer
    center centre shelter letter theater theatre heater starter charter chapter semester
    sister brother mother father daughter other user water winter summer number dinner
    lover member fan beginner mess introvert extrovert ambivert person people owner homeowner
    renter tenant character
    parent partner neighbor neighbour roommate flatmate helper supporter believer
    follower fighter survivor loner gamer reader thinker dreamer worrier sleeper eater
    drinker smoker runner-up regular customer listener viewer watcher user leader
    newcomer foreigner stranger outsider insider player lover hater nerd geek fanboy
    fangirl optimist pessimist perfectionist minimalist vegetarian vegan pescatarian
    tourist passenger visitor traveler traveller speaker baker's river spider error
    mirror color colour honor honour humor humour flavor flavour favor favour major
    minor senior junior doctor's monster power tower paper matter letter
    corner daughter's order border butter ginger finger shoulder super ever never over
    under after later better bitter faster slower closer older younger bigger smaller
    checklist playlist wishlist list twist wrist mist gist fist exist assist insist persist
    resist consist reminder sticker poster trailer
    """
)
# Occupations that the suffix rules would miss but people often name with "as".
RETIRED_WORDS: frozenset[str] = words("retired retiree pensioner")

LANGUAGES: frozenset[str] = words(
    """
    english spanish french german italian portuguese dutch russian ukrainian polish czech
    slovak hungarian romanian bulgarian greek turkish arabic hebrew persian farsi urdu
    hindi bengali punjabi tamil telugu marathi gujarati kannada malayalam nepali sinhala
    mandarin cantonese chinese japanese korean vietnamese thai indonesian malay tagalog
    filipino swahili amharic yoruba igbo zulu xhosa afrikaans swedish norwegian danish
    finnish icelandic estonian latvian lithuanian serbian croatian bosnian slovenian
    albanian macedonian georgian armenian azerbaijani kazakh uzbek mongolian latin welsh
    irish gaelic catalan basque galician esperanto asl sign
    """
)
NATIONALITIES: frozenset[str] = words(
    """
    american canadian mexican brazilian argentinian argentine chilean colombian peruvian
    venezuelan cuban british english scottish welsh irish french german italian spanish
    portuguese dutch belgian swiss austrian swedish norwegian danish finnish icelandic
    polish czech slovak hungarian romanian bulgarian greek turkish russian ukrainian
    israeli lebanese syrian iraqi iranian egyptian moroccan algerian tunisian nigerian
    ghanaian kenyan ethiopian south-african indian pakistani bangladeshi sri-lankan nepali
    chinese japanese korean vietnamese thai filipino indonesian malaysian singaporean
    australian kiwi new-zealander jamaican haitian puerto-rican dominican
    """
)
RELIGIONS: frozenset[str] = words(
    """
    christian catholic protestant orthodox mormon jewish muslim hindu buddhist sikh jain
    atheist agnostic pagan quaker
    """
)
# Traits people state about themselves that stay true.
# Adjectives that name a condition ("asthmatic": has asthma).
# Trait nouns people call themselves ("a night owl").
TRAIT_NOUNS: frozenset[str] = frozenset(
    """night owl|morning person|early bird|introvert|extrovert|ambivert|homebody|people person
    |dog person|cat person|neat freak|perfectionist|optimist|pessimist|workaholic|foodie
    |bookworm|gym rat|coffee addict|tea drinker|coffee drinker|night person|light sleeper
    |heavy sleeper|picky eater|adrenaline junkie|creature of habit|news junkie""".replace(
        "\n", ""
    ).split("|")
)
CONDITION_ADJECTIVES: dict[str, str] = {
    "asthmatic": "asthma",
    "diabetic": "diabetes",
    "epileptic": "epilepsy",
    "anemic": "anemia",
    "anaemic": "anaemia",
    "arthritic": "arthritis",
    "dyslexic": "dyslexia",
    "autistic": "autism",
    "celiac": "coeliac disease",
    "coeliac": "coeliac disease",
    "lactose intolerant": "lactose intolerance",
    "lactose-intolerant": "lactose intolerance",
    "gluten intolerant": "gluten intolerance",
    "pregnant": "pregnant",
    "hypertensive": "hypertension",
    "insomniac": "insomnia",
    "prediabetic": "prediabetes",
    "pre-diabetic": "prediabetes",
    "hypothyroid": "hypothyroidism",
    "bipolar": "bipolar disorder",
}
TRAITS: frozenset[str] = words(
    """
    left-handed right-handed ambidextrous colorblind colourblind deaf blind dyslexic
    introverted extroverted introvert extrovert shy vegan-curious autistic
    neurodivergent sober transgender nonbinary non-binary bilingual trilingual
    """
)
RELATIONSHIP_STATES: dict[str, str] = {
    "married": "married",
    "single": "single",
    "divorced": "divorced",
    "engaged": "engaged",
    "separated": "separated",
    "widowed": "widowed",
    "a widow": "widowed",
    "a widower": "widowed",
    "dating": "in a relationship",
    "taken": "in a relationship",
    "in a relationship": "in a relationship",
    "seeing someone": "in a relationship",
}
# Relationship states after which a partner named earlier is no longer the partner.
ENDED_RELATIONSHIP: frozenset[str] = frozenset({"single", "divorced", "separated", "widowed"})

# Words that end a value: what follows them is no longer the thing itself.
VALUE_STOPS: frozenset[str] = words(
    """
    because since as so but although though while whereas when whenever until unless
    after before for with which who whom whose where that and or nor then than
    """
)
# Phrases of time and manner that trail a value ("... in Lisbon last month").
TIME_WORDS: frozenset[str] = words(
    """
    now currently today tonight yesterday tomorrow recently lately nowadays anymore again
    too also still already just soon ago these those days weeks months years week month
    year weekend weekends morning mornings evening evenings night nights full-time
    part-time permanently temporarily right moment finally officially
    """
)
MONTHS: frozenset[str] = words(
    """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
)
# The months as a pattern's alternatives, the longest first ("sept" before "sep").
MONTH_PATTERN = "|".join(sorted(MONTHS, key=len, reverse=True))
WEEKDAYS: frozenset[str] = words("monday tuesday wednesday thursday friday saturday sunday")
NUMBER_WORDS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a pair of": 2,
}
# Common words that are capitalised at the start of a sentence but are never names.
NOT_NAMES: frozenset[str] = words(
    """
    i i'm im i've i'll i'd me my mine we our us you your he she they them it this that
    these those the a an and but or so just really very also still now then here there
    fine good great ok okay sure sorry thanks thank yes yeah yep no nope not hi hello hey
    tired hungry sick busy bored happy sad excited nervous sure glad ready done back home
    here new old married single divorced engaged pregnant retired allergic vegan
    vegetarian from in at on into going gonna trying looking working living moving
    about almost always never ever actually honestly basically literally totally kinda
    sort kind of his her hers its their theirs whose what who which where when why how
    let everyone everybody someone somebody anyone anybody nobody everything something
    nothing anything some any many much more most few lots both each every another other
    such lonely early late ugly silly lucky sleepy ready lazy crazy angry funny poorly comfy
    cozy cosy curious free off out up down away well unwell better worse alone late sober
    awake asleep alive upset stuck lost bored confused
    right wrong true smart clever strict nice lovely amazing awesome brilliant perfect sweet
    cute annoying stubborn patient wonderful hilarious strong fussy picky
    previously formerly originally initially once earlier lately recently currently nowadays
    yesterday today tomorrow tonight next hopefully eventually meanwhile otherwise somehow
    anyway besides soon
    god gosh jesus lord christ heaven heavens g'day gday cheers
    """
)


# The relations a "she" or a "he" can stand for.
SHE: frozenset[str] = words(
    """
    sister mom mother mum mama wife daughter girlfriend aunt auntie aunty lass
    grandma grandmother gran granny nana niece fiancee stepmom stepmother stepsister
    granddaughter amma nani
    dadi abuela abuelita nonna babcia
    """
)
HE: frozenset[str] = words(
    """
    brother dad father husband son boyfriend uncle grandpa grandfather grandad granddad nephew
    fiance stepdad stepfather stepbrother grandson appa kuya nanu abuelo abuelito lad
    nonno dziadek babu
    """
)


# One name per relation, so "my grandma" and "the user's grandmother" are one person.
_CANONICAL = {
    "mom": "mother",
    "mum": "mother",
    "aunty": "aunt",
    "lad": "son",
    "lass": "daughter",
    "auntie": "aunt",
    "mommy": "mother",
    "mummy": "mother",
    "dad": "father",
    "daddy": "father",
    "grandma": "grandmother",
    "granny": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "granddad": "grandfather",
    "grampa": "grandfather",
    "gramps": "grandfather",
    "gran": "grandmother",
    "nan": "grandmother",
    "nana": "grandmother",
    "nanna": "grandmother",
    "mam": "mother",
    "mamma": "mother",
    "pops": "father",
    "mamá": "mother",
    "mãe": "mother",
    "maman": "mother",
    "mutti": "mother",
    "amma": "mother",
    "appa": "father",
    "kuya": "brother",
    "nani": "grandmother",
    "dadi": "grandmother",
    "abuela": "grandmother",
    "abuelita": "grandmother",
    "nonna": "grandmother",
    "babcia": "grandmother",
    "nanu": "grandfather",
    "abuelo": "grandfather",
    "abuelito": "grandfather",
    "nonno": "grandfather",
    "dziadek": "grandfather",
    "babu": "grandfather",
    "kid": "child",
    "toddler": "child",
    "newborn": "child",
    "grandkid": "grandchild",
    "stepmom": "stepmother",
    "stepdad": "stepfather",
    "fiancee": "fiance",
    "fiancé": "fiance",
    "fiancée": "fiance",
    "boss": "manager",
    "supervisor": "manager",
    "coworker": "colleague",
    "co-worker": "colleague",
    "neighbour": "neighbor",
    "flatmate": "roommate",
    "housemate": "roommate",
    "bestie": "best friend",
    "best mate": "best friend",
    "mate": "friend",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "hubby": "husband",
    "bff": "best friend",
    "mama": "mother",
    "papa": "father",
}


def relation_of(word: str, *, canonical: bool = False) -> str | None:
    """Return the relation a word names ("sisters" -> "sister"), or None.

    With ``canonical`` one name per relation ("mum" -> "mother"), for comparing; without it
    the word as said (singular), for the sentences memory writes.
    """
    w = " ".join(word.casefold().split())
    if w in _PLURALS:
        w = _PLURALS[w]
    elif w not in RELATIONS and w.endswith("s") and w[:-1] in RELATIONS:
        w = w[:-1]
    if w not in RELATIONS:
        return None
    return _CANONICAL.get(w, w) if canonical else w


def canonical_relations(text: str) -> str:
    """Replace each relation word of ``text`` by its canonical name ("my mum" -> "my mother")."""
    return " ".join(relation_of(w, canonical=True) or w for w in text.split())


def is_occupation(phrase: str) -> bool:
    """Return True if the head (last word) of ``phrase`` names an occupation."""
    words = phrase.casefold().replace("-", " ").split()
    if not words:
        return False
    head = words[-1]
    joined = "-".join(words[-2:]) if len(words) >= 2 else head
    if joined in OCCUPATIONS or head in OCCUPATIONS:
        return True
    if head in NOT_OCCUPATIONS or len(head) < 5:
        return False
    if head.endswith(_OCCUPATION_SUFFIXES):
        return True
    # "manager", "designer", "director": an agent noun; most are occupations when a person
    # says they are one ("I'm a hiker" is rare, "I'm a welder" common).
    return head.endswith(_AGENT_SUFFIXES) and not head.endswith(("ever", "ther"))


def is_pet(word: str) -> bool:
    """Return True if ``word`` names a kind of pet (singular or plural)."""
    w = word.casefold()
    return w in PETS or w in DOG_BREEDS or (w.endswith("s") and w[:-1] in PETS | DOG_BREEDS)


IRREGULAR_PLURALS: frozenset[str] = frozenset(w for w in _PLURALS if not w.endswith("s"))
_SINGULAR_TO_PLURAL = {one: many for many, one in _PLURALS.items()}


def plural(noun: str) -> str:
    """ "child" -> "children", "sister" -> "sisters"."""
    return _SINGULAR_TO_PLURAL.get(noun, noun if noun.endswith("s") else noun + "s")


"""Relation plurals a trailing "s" does not make ("children")."""


# What a clinician found is the user's own health news, not an opinion ("my doctor says I'm
# prediabetic"); someone else's "says" is reported speech and states nothing.
CLINICIAN_SAYS = (
    r"(?:(?:my|the|our)\s+)?(?:doctor|doc|gp|allergist|dermatologist|dentist|cardiologist"
    r"|physio|physiotherapist|optician|optometrist|specialist|consultant|neurologist|nurse"
    r"|psychiatrist|therapist|rheumatologist|endocrinologist|oncologist|gastroenterologist"
    r"|surgeon|midwife|ob-?gyn)\s+(?:says|said|told me|confirmed|reckons|thinks)(?:\s+that)?"
)

# What "no more ..." exclaims rather than ends ("no more excuses!"): not a thing a person had.
EXCLAIMED_NOUNS = words(
    """
    excuses drama questions problems worries stress waiting mistakes games lies nonsense
    complaining talking fun everyone everybody all guys world now
    """
)

# Long words the rules key on, restored when typed one letter off ("alergic", "vegitarian").
TRIGGER_WORDS = words(
    """
    allergic allergies vegetarian pescatarian divorced girlfriend boyfriend pregnant
    daughter grandmother grandfather intolerant diabetes diabetic arthritis university
    penicillin engineer
    """
)

# Verbs of something a person does on a date ("run the Chicago marathon in october"): said in
# the future with a date, what they name is a plan.
PLANNED_ACTIVITY_VERBS = words(
    """
    do run race compete ride swim hike climb attend visit see play walk cycle
    """
)
# What a plan can start with when it is something to do rather than an event ("the wedding").
PLANNED_VERBS = PLANNED_ACTIVITY_VERBS | words(
    """
    go move start take travel fly drive get buy sell open launch finish learn try apply join
    leave quit retire marry adopt propose visit renovate
    """
)
