"""The offline reconciliation rules: what a new fact does to the facts memory holds."""

from __future__ import annotations

import pytest

from daemon.memory.reconcile import (
    Known,
    Policy,
    claims_of,
    match_values,
    reconcile,
    subject_key,
    value_key,
)
from daemon.memory.values import short_for
from plugins.extractors.claims import Claim


def _decide(existing: list[str], new: str, provenance: str = "user") -> tuple[str, list[int]]:
    known = [Known(str(i), text, claims_of(text)) for i, text in enumerate(existing)]
    verdict = reconcile(new, claims_of(new), known, provenance=provenance)
    ids = verdict.superseded or verdict.conflicts_with
    if verdict.duplicate_of is not None:
        ids = (verdict.duplicate_of,)
    return verdict.outcome, sorted(int(i) for i in ids)


@pytest.mark.parametrize(
    ("existing", "new", "outcome", "targets"),
    [
        # A new value of a one-at-a-time attribute replaces the old, in any wording.
        (["Lives in Boston."], "I just moved to Seattle.", "updated", [0]),
        (["The user lives in Leeds.", "Has a dog."], "we relocated to York", "updated", [0]),
        (["I work at Acme."], "The user joined Globex last month.", "updated", [0]),
        (["Works as a plumber."], "I'm an electrician now", "updated", [0]),
        (["The user is married."], "We got divorced in the spring.", "updated", [0]),
        (["I'm 41."], "just turned 42", "updated", [0]),
        # A negation or "used to" ends what it names.
        (["The user is vegetarian."], "I'm not vegetarian anymore", "updated", [0]),
        (["Likes jazz."], "I used to like jazz", "updated", [0]),
        (["Has a cat named Pip."], "Pip died last night", "updated", [0]),
        (["Plays the cello."], "I stopped playing the cello", "updated", [0]),
        (["Is allergic to cats."], "I'm no longer allergic to cats", "updated", [0]),
        # A change that names the old value replaces it.
        (["Drinks black coffee."], "switched from coffee to green tea", "updated", [0]),
        (["Prefers trains over planes."], "I prefer planes now", "updated", [0]),
        # A habit a diet excludes ends the diet.
        (["The user is vegan."], "I eat fish again", "updated", [0]),
        # Restatements are one fact.
        (["Lives in Boston."], "I live in Boston", "deduplicated", [0]),
        (["The user is allergic to peanuts."], "I have a peanut allergy", "deduplicated", [0]),
        (["My sister is called Ana."], "Ana is my sister.", "deduplicated", [0]),
        # More of a many-valued attribute is an addition.
        (["Speaks Spanish."], "I speak Portuguese too", "added", []),
        (["Has a dog named Rex."], "we also adopted a cat", "added", []),
        (["Likes hiking."], "I love climbing", "added", []),
        # Different people never touch.
        (["Bob is 35 years old."], "Carol is 40 years old.", "added", []),
        (["My brother lives in Oslo."], "I live in Bergen.", "added", []),
        (["Sam works at Google."], "The user works at Meta.", "added", []),
        # Shared words are not shared facts.
        (["Lives in Boston."], "Loves Boston cream pie.", "added", []),
        (["Works at Acme."], "Works nights.", "added", []),
        # Said another way, or named differently.
        (["The user uses VS Code."], "The user switched to Neovim from VS Code.", "updated", [0]),
        (["User's home city is London"], "User now lives in Berlin", "updated", [0]),
        (["Works as an accountant"], "retired this year and no longer works", "updated", [0]),
        (["Has no known medical conditions"], "was diagnosed with asthma", "updated", [0]),
        (["The user's dog is named Max."], "The user's dog is named Bella.", "updated", [0]),
        (
            ["The user has a cat named Whiskers."],
            "The user's cat Whiskers passed away.",
            "updated",
            [0],
        ),
        (["I work from the office every day"], "I work fully remote now", "updated", [0]),
        (["Dana is the user's manager."], "Dana left the company.", "updated", [0]),
        (["The user's wife is named Sarah."], "User is married to Sarah", "deduplicated", [0]),
        (["User has two children"], "The user has 2 kids", "deduplicated", [0]),
        (["The user lives in New York City."], "User resides in NYC", "deduplicated", [0]),
        (["I work remotely from home"], "User works from home", "deduplicated", [0]),
        (["Wears glasses"], "got lasik, no more glasses", "updated", [0]),
        (["Son Arjun is in daycare"], "No more daycare for Arjun.", "updated", [0]),
        (["Arjun is in daycare"], "No more daycare for the user.", "added", []),
        (["Works as a data engineer"], "I teach piano for a living", "added", []),
        (
            ["Works as a data engineer"],
            "I'm an engineer, I build data tools for a living",
            "deduplicated",
            [0],
        ),
        (["Hobby: baking sourdough"], "i bake sourdough in my free time", "deduplicated", [0]),
        (["Is a sophomore in college"], "I'm a junior now", "updated", [0]),
        (["Kavya is in high school"], "Kavya started university in Delhi.", "updated", [0]),
        (["Kavya is in high school"], "Maya started university.", "added", []),
        (["The user has a broken wrist."], "The user's wrist has healed.", "updated", [0]),
        (["The user's boyfriend is Marcus."], "Marcus and I got married!", "updated", [0]),
        (["The user's fiancée is Ines."], "The user is engaged.", "added", []),
        (["Likes country music"], "honestly I'm so over country music now", "updated", [0]),
        (["Drives a Toyota Corolla"], "traded in the corolla for a Subaru Outback", "updated", [0]),
        (["User attends Ohio State"], "transferred from ohio state to Purdue", "updated", [0]),
        (["The user is pregnant."], "our son was born on tuesday!", "updated", [0]),
        (["Has a hamster named Peanut"], "we renamed the hamster Mochi", "updated", [0]),
        (["The user works at Target."], "new job at Best Buy, goodbye Target!", "updated", [0]),
        (["The user is allergic to peanuts."], "peanuts are a no-go for me", "deduplicated", [0]),
        (["Plans to visit Japan in April"], "we cancelled the japan trip", "updated", [0]),
        (["Is unemployed"], "finally got hired, I'm a dental hygienist", "updated", [0]),
        (["Likes horror movies"], "horror isn't my thing anymore", "updated", [0]),
        (["Prefers Android phones"], "I'm team iPhone now", "updated", [0]),
        (["Prefers Android phones"], "I'm team tea now", "added", []),
        (
            ["Dislikes jazz"],
            "I used to hate jazz but now I put it on every morning",
            "updated",
            [0],
        ),
        (["Is married to Chris"], "Chris and I finalized our divorce", "updated", [0]),
        (["Has no known allergies"], "diagnosed with a penicillin allergy", "updated", [0]),
        (["Has long COVID"], "I've recovered from long covid", "updated", [0]),
        (["Is pregnant"], "Had the baby! A girl, June", "updated", [0]),
        (["Works at Twitter"], "Formerly at Twitter, now freelancing", "updated", [0]),
        (["Engaged to Priya"], "Married to Priya", "updated", [0]),
        (["The user's boyfriend is Tomás."], "The user's husband is Tomás.", "updated", [0]),
        (
            ["Rents an apartment in Madrid"],
            "We bought our flat in Madrid, no more rent!",
            "updated",
            [0],
        ),
        (["Prefers tea over coffee"], "I've turned into a coffee person", "updated", [0]),
        (
            ["Takes sertraline daily"],
            "My psychiatrist switched me from sertraline to bupropion",
            "updated",
            [0],
        ),
        (
            ["Plays guitar in a band called The Moths"],
            "I play bass in a band called Low Tide now",
            "updated",
            [0],
        ),
        (
            ["Plays guitar in a band called The Moths"],
            "I also play in a band called Low Tide",
            "added",
            [],
        ),
        (["Plans to visit Japan in April"], "we cancelled the Paris trip", "added", []),
        (["Is studying for an MBA at Warwick"], "Finished my MBA in July", "updated", [0]),
        (["Dislikes running"], "weirdly I've fallen in love with running", "updated", [0]),
        # Named with a change, though no claim could be read: replaced; said again: restated.
        (
            ["Cycles to work on a Brompton"],
            "Someone nicked my Brompton so it's the bus now",
            "updated",
            [0],
        ),
        (
            ["Is allergic to peanuts"],
            "reminder: no peanuts for me, I'm allergic",
            "deduplicated",
            [0],
        ),
        # A bare verb beside a known attribute does not stop a restatement.
        (
            ["Lives in Manchester"],
            "yeah still in manchester, can't see myself leaving",
            "deduplicated",
            [0],
        ),
        (["Speaks Portuguese and English"], "Native Portuguese speaker", "deduplicated", [0]),
        (["Is learning German"], "I speak German properly now", "updated", [0]),
        (["The user's native language is Spanish."], "I switched to Korean", "added", []),
        (
            ["The user plans to run the Chicago marathon in october."],
            "not doing chicago anymore",
            "updated",
            [0],
        ),
        # Said on the way to something else: a home, a birthday, a habit dropped, an ex.
        (["Lives in Hove"], "our new house in Lewes needs a new boiler already", "updated", [0]),
        (["Lives in Hove"], "my commute from Brighton is killing me", "updated", [0]),
        (["Is 29 years old"], "had the best time at my 30th birthday party", "updated", [0]),
        (["Drinks alcohol at weekends"], "I've been off alcohol since january", "updated", [0]),
        (["Married to Priya"], "my ex-wife Priya wants the dog back", "updated", [0]),
        (["Dating Alex"], "Alex and I are getting married next spring", "updated", [0]),
        (["Works as a waiter at a diner"], "quit the diner job last week", "updated", [0]),
        (["Goes climbing"], "gave up climbing after my shoulder injury", "updated", [0]),
        # Restated with more words around it.
        (["Works as a nurse"], "like I said, I'm a nurse, nights are rough", "deduplicated", [0]),
        (
            ["Takes insulin for type 1 diabetes"],
            "I'm on insulin for my diabetes",
            "deduplicated",
            [0],
        ),
        # Getting used to something is no past habit.
        (["Lives in Hove"], "we moved to Leeds, still getting used to the accent", "updated", [0]),
        # Contradictions a person decides: relatives said to be none, a life-long never.
        (["Has no children"], "my daughter turns four on friday", "conflict", [0]),
        (["Has no siblings"], "my sister Ana is visiting", "conflict", [0]),
        (["Has a brother named Ravi"], "as an only child I never had to share", "conflict", [0]),
        (["Has a cat named Miso"], "I've never had a pet in my life", "conflict", [0]),
        (["Born in Lyon"], "I was born and raised in Nantes", "conflict", [0]),
        (["Allergic to peanuts"], "I eat peanuts every single day", "conflict", [0]),
        (["Has no children"], "we just had a baby girl!", "updated", [0]),
        # Changes said by what they brought.
        (["Works as a postman"], "second week of retirement and I'm bored already", "updated", [0]),
        (["Lives in Pune"], "the move to Nagpur is finally done", "updated", [0]),
        (
            ["Works as a junior designer"],
            "first day as a senior designer went fine",
            "updated",
            [0],
        ),
        (["Studies law at Leiden"], "I'm officially done with leiden", "updated", [0]),
        (["Has a sprained ankle"], "the ankle has healed, back running", "updated", [0]),
        (
            ["Has a hamster named Nibbles"],
            "nibbles didn't make it through the winter",
            "updated",
            [0],
        ),
        (["Plays the cello"], "sold my cello last month", "updated", [0]),
        (["Plays rugby on Sundays"], "packed in the sunday rugby", "updated", [0]),
        (["Lives in Karen, Nairobi"], "the new flat in kilimani has a view", "updated", [0]),
        # A bike beside a car; a lifelong "never" against years of it is for a person.
        (["Drives a Honda Civic"], "bought an e-bike for the school run", "added", []),
        (["Has never smoked"], "I've smoked a pack a day for ten years", "conflict", [0]),
        (["Born in Lima"], "as someone born in Cusco I miss the mountains", "conflict", [0]),
        (["Is 41 years old"], "as a 41 year old I should stretch more", "deduplicated", [0]),
        # Said again with chat around it: only what is read as lasting counts as news.
        (
            ["Is vegetarian"],
            "being veggie I always get the sad salad at weddings",
            "deduplicated",
            [0],
        ),
        (
            ["Works as an electrician"],
            "like I said, I'm an electrician, so I can do the wiring myself",
            "deduplicated",
            [0],
        ),
        (["Works as a nurse"], "I'm a nurse and I just got a dog", "added", []),
        # Ways of saying a change that are no grammar rule's first reading.
        (["Lives in Hamburg"], "we're Munich-based now, the move went smoothly", "updated", [0]),
        (
            ["Is a junior accountant at KPMG"],
            "they bumped me up to senior accountant as of this month",
            "updated",
            [0],
        ),
        (
            ["Prefers dogs over cats"],
            "after fostering kittens I'm a cat person now",
            "updated",
            [0],
        ),
        (
            ["User's hobby is surfing"],
            "gave up surfing after the shoulder injury, I've taken up sailing",
            "updated",
            [0],
        ),
        (["Has a goldfish called Bubbles"], "RIP Bubbles, we'll miss him", "updated", [0]),
        # "Previously" is no one's name; "back in the office full time" ends remote work.
        (["Lives in Boston"], "Previously lived in Boston, now based in Denver", "updated", [0]),
        (["Works remotely"], "I'm back in the office full time now", "updated", [0]),
        # "no longer has" says a change as a fact text, whoever wrote it.
        (["The user plays guitar."], "The user no longer has guitars.", "updated", [0]),
        (
            ["The user rents a flat in Glasgow."],
            "We bought our first house in Glasgow!",
            "updated",
            [0],
        ),
        (
            ["The user works at Google as a product designer."],
            "product designer at Google, yes, that's still me",
            "deduplicated",
            [0],
        ),
        # Said "as a ...", as if memory knew it: another employer is queued for a person.
        (
            ["Works at Amazon"],
            "As a recruiter at Microsoft I see a lot of bad CVs",
            "conflict",
            [0],
        ),
        (["Works as an electrician"], "like I said, I moved to Leeds", "added", []),
        # A car got for a child is the child's: the user's own car stays.
        (["Drives a Skoda Octavia"], "our son passed his test so we got him a Polo", "added", []),
        # "too" adds the news, not a second age: one age at a time.
        (["The user is 52 years old."], "Turned 53 last month too, feeling it", "updated", [0]),
        # An illness known by name ends when the user recovers from it; a pet put down died.
        (["Has malaria"], "fully recovered from the malaria, back on the farm", "updated", [0]),
        (
            ["Has a cat named Mishti"],
            "had to put Mishti down yesterday, she was 17",
            "updated",
            [0],
        ),
        # Said in passing: a pet's death, a sale, quitting, an age, the same husband.
        (["Has a dog named Bruno."], "Bruno crossed the rainbow bridge on Sunday.", "updated", [0]),
        (["The user owns a PS5."], "flogged my ps5 on ebay, zero regrets", "updated", [0]),
        (["Smokes ten a day"], "day 100 without a cigarette!!", "updated", [0]),
        (["Is 34 years old"], "birthday today, 35, where does the time go", "updated", [0]),
        (
            ["The user is 52."],
            "At 52, is it too late for me to learn the piano?",
            "deduplicated",
            [0],
        ),
        (
            ["Husband is named Oluwaseun"],
            "Seun and I are celebrating 10 years married next month, gift ideas?",
            "deduplicated",
            [0],
        ),
    ],
)
def test_decisions(existing: list[str], new: str, outcome: str, targets: list[int]) -> None:
    assert _decide(existing, new) == (outcome, targets)


@pytest.mark.parametrize(
    ("existing", "new", "outcome", "targets"),
    [
        # What never was, or what cannot change, contradicts: a person decides which is right.
        (["Is married to Sam"], "I've never been married", "conflict", [0]),
        (["Was born in 1988"], "I was born in 1991", "conflict", [0]),
        (["Is from Leeds"], "I'm from York", "conflict", [0]),
        # An age never goes down: one of the two is wrong (a correction says which).
        (["Is 34 years old"], "as a 29 year old the mortgage stuff scares me", "conflict", [0]),
        (["Is 34 years old"], "actually I'm 29, that was a typo", "updated", [0]),
        (["Is 34 years old"], "I'm 35 now", "updated", [0]),
        (["Has two children"], "As someone without kids, I don't get it", "conflict", [0]),
        (["Has two sisters"], "I have no kids", "added", []),
        # Eating or drinking what a diet, a condition or an abstinence rules out: a meal
        # contradicts; the habit said as a change ends it.
        (["Is vegetarian"], "we had lamb chops for lunch on Sunday", "conflict", [0]),
        (["Doesn't drink"], "I had two glasses of wine at the wedding", "conflict", [0]),
        (["Is teetotal"], "I have a pint with the lads every Friday", "conflict", [0]),
        (["Is a non-smoker"], "I smoke ten a day, it's bad", "conflict", [0]),
        (["Is coeliac"], "I eat pasta most nights and I'm fine", "conflict", [0]),
        (["Does not drink alcohol"], "I drink wine again these days", "updated", [0]),
        (["Is vegan"], "my sister had a burger yesterday", "added", []),
        # A partner named against "single"; one more child than the count said; an injury
        # that healed, said in passing.
        (["Is single"], "my girlfriend thinks I work too much", "conflict", [0]),
        (
            ["Has one son, Emil"],
            "our second baby is due to arrive any day, wait, she's here!",
            "updated",
            [0],
        ),
        (["Has one son, Emil"], "my sister's second baby arrived", "added", []),
        (
            ["Has a sprained wrist"],
            "physio cleared me this morning, back on the bike",
            "updated",
            [0],
        ),
        (["Has asthma"], "physio cleared me this morning", "added", []),
        (["Is prediabetic"], "I'm no longer prediabetic, the diet worked", "updated", [0]),
        # Another person's offer is theirs.
        (["Works as a nurse at St Mary's"], "my wife accepted an offer from Ocado", "added", []),
        (["Works as a nurse at St Mary's"], "just accepted an offer from Ocado!", "updated", [0]),
        # A life-long place is no move.
        (["Lives in Cork"], "I've lived in Galway my entire life", "conflict", [0]),
        (["Lives in Cork"], "born in Galway and never left", "conflict", [0]),
        # ... unless the user says they are correcting it.
        (["Was born in 1988"], "Actually I was born in 1991", "updated", [0]),
        # A change said as such still applies.
        (["Drinks coffee every morning"], "I never drink coffee anymore", "updated", [0]),
        # Who the user is, said on the way to a question, restates what memory holds.
        (
            ["Lives in Leeds"],
            "As a Leeds resident, what do you reckon about the trams?",
            "deduplicated",
            [0],
        ),
        (["Is vegan"], "being vegan I can't eat any of that menu", "deduplicated", [0]),
        # One more of a kind is kept beside the one before.
        (["Has a dog named Rex"], "we got a second dog, a collie called Meg", "added", []),
        (["Owns a Toyota Corolla"], "Just bought an e-bike, the Corolla stays", "added", []),
        (["Owns a Toyota Corolla"], "Just bought a Honda Civic", "updated", [0]),
        # Phrasings of a change.
        (["Drives a 2012 Ford Focus"], "Traded the Focus in for a Kia EV6", "updated", [0]),
        (["Is a junior developer at Monzo"], "got bumped up to senior engineer", "updated", [0]),
        (
            ["Lives in Norwich"],
            "been in cambridge three weeks now and i still get lost",
            "updated",
            [0],
        ),
        (["Has a broken left wrist in a cast"], "wrist has healed fine", "updated", [0]),
        (
            ["Rents a flat in Brixton"],
            "we finally got the keys to our house in Croydon",
            "updated",
            [0],
        ),
        (
            ["Eats meat but avoids pork"],
            "now that I've cut out meat, any lentil dishes?",
            "updated",
            [0],
        ),
        (["Is single"], "Me and Jess made it official last week", "updated", [0]),
        (["Has the flu"], "I've recovered from the flu", "updated", [0]),
        (["Takes metformin"], "they've taken me off the tablets completely", "updated", [0]),
        (["Dislikes coffee"], "I've changed my mind about coffee", "updated", [0]),
        (["Likes coffee"], "I changed my mind about coffee", "updated", [0]),
        # The same verb with another object, said as a change; "also" adds.
        (["Plays guitar"], "I play the drums now", "updated", [0]),
        (["Plays guitar"], "I also play the drums now", "added", []),
        # A prescription changed; work done full time now; a diet left; a birth; a parting.
        (["Takes metformin"], "now I'm on gliclazide", "updated", [0]),
        (["Takes metformin"], "I take lisinopril for blood pressure", "added", []),
        (["Works as a waiter"], "doing freelance design full time now", "updated", [0]),
        (["Follows a paleo diet"], "been off the whole paleo thing since june", "updated", [0]),
        (["Is pregnant"], "our son tevita arrived on the 3rd", "updated", [0]),
        (["Dating Marco"], "marco and i called it quits", "updated", [0]),
        (["Drives a Honda Jazz"], "the jazz is gone, bus pass now", "updated", [0]),
        # Never having had a kind of thing contradicts one of it.
        (["Allergic to peanuts"], "i've never had a food allergy", "conflict", [0]),
        (["Has a cat named Miso"], "never owned a pet in my life", "conflict", [0]),
        # Said again on the way: a job, an age, a thing named as a chat line's subject.
        (["Works as a nurse"], "as a nurse i get asked this at every party", "deduplicated", [0]),
        (["Is 34 years old"], "at 34 my back should not hurt like this", "deduplicated", [0]),
        (["Has a dog named Rex"], "rex says hi", "deduplicated", [0]),
        (["Allergic to shellfish"], "remember the shellfish thing, no prawns", "deduplicated", [0]),
        (["Has a dog named Java"], "Codes mostly in Java", "added", []),
        # A move said done; a pet buried; a cast off; a band over; a thing sold; a diet word.
        (["Lives in Iloilo"], "finally done moving to cebu, so humid", "updated", [0]),
        (["Has a cat named Mango"], "we buried Mango under the lime tree", "updated", [0]),
        (["Has a broken ankle"], "the cast came off, ankle still stiff", "updated", [0]),
        (["Sings in a choir"], "since the choir folded i sing in the shower", "updated", [0]),
        (["Owns a Yamaha Mio scooter"], "sold the mio and got a bicycle", "updated", [0]),
        (["Is vegetarian"], "so i'm not veg anymore", "updated", [0]),
        (["Goes running every morning"], "i barely run anymore", "updated", [0]),
        (["Has type 2 diabetes"], "Being diabetic, I skip dessert", "deduplicated", [0]),
        (
            ["Lives in Mirissa"],
            "here in mirissa the season starts in november",
            "deduplicated",
            [0],
        ),
        (["Is an only child"], "my older brother and i share a flat", "conflict", [0]),
        (["Has no siblings"], "my cousin is visiting", "added", []),
        # Started again; a flat with friends; a last shift and a new start; a plan carried out.
        (
            ["Is vegetarian"],
            "I've gone back to eating chicken, veggie wasn't for me",
            "updated",
            [0],
        ),
        (
            ["Lives with parents in Jeddah"],
            "got a flat with two friends in Al Rawdah",
            "updated",
            [0],
        ),
        (
            ["Works as a cashier at Lidl"],
            "my last shift at lidl was friday, monday I start at Tesco",
            "updated",
            [0],
        ),
        (["Plans to move to Hobart"], "we're finally in hobart, boxes everywhere", "updated", [0]),
        (["Owns a Yamaha guitar"], "sold the yamaha last week", "updated", [0]),
        (["Smokes"], "3 months smoke free today", "updated", [0]),
        (["Plays hockey on sundays"], "hung up the hockey skates after my knee op", "updated", [0]),
        (["Eats meat"], "it's been a month since I went vegetarian", "updated", [0]),
        (["Lives in Bergen"], "I miss the fjords since moving down to Oslo", "updated", [0]),
        # Denying a kind of allergy without a change contradicts one; with a change it ends it.
        (["Is allergic to penicillin"], "I don't have any drug allergies", "conflict", [0]),
        (["Is allergic to cats"], "I don't have any allergies anymore", "updated", [0]),
        (["Has two brothers"], "being an only child, holidays at home are quiet", "conflict", [0]),
        # Recovered from "the X thing"; graduated from the degree studied; an offer turned down.
        (["Has a sprained wrist"], "fully recovered from the wrist thing", "updated", [0]),
        (["Is studying for a law degree"], "graduated in june!!", "updated", [0]),
        (["Is considering a job offer in Oslo"], "turned down the Oslo offer", "updated", [0]),
        (["Plays chess at a club"], "used to do chess club but now it's climbing", "updated", [0]),
        (["Works as a nurse"], "I switched from nursing to coding", "updated", [0]),
        # A mention of a person, whatever the tense around it, never replaces them.
        (["Has a son named Aksel"], "my boy Aksel hasn't slept since June", "deduplicated", [0]),
        (
            ["Has one son named Leo"],
            "Leo's baby sister Freya was born tuesday!! two kids now",
            "updated",
            [0],
        ),
        (
            ["Works at Spotify as a backend engineer"],
            "since the promotion to staff engineer my calendar is all meetings",
            "updated",
            [0],
        ),
        # A place named again with only "these days" is where the user still is.
        (
            ["Lives in Copenhagen"],
            "being vegan in copenhagen is easy these days",
            "deduplicated",
            [0],
        ),
        (["Is 27 years old"], "birthday yesterday, 28 now and feeling ancient", "updated", [0]),
        (
            ["Is a sergeant in the army"],
            "as a sergeant I get stuck with the paperwork",
            "deduplicated",
            [0],
        ),
        (["Graduated from the University of Lagos"], "I never went to university", "conflict", [0]),
        (["Has never been married"], "my ex-husband and I still co-parent", "conflict", [0]),
        (
            ["Is expecting a baby in March"],
            "baby's here!! Sofia arrived on tuesday",
            "updated",
            [0],
        ),
        (["Has two cats, Pixel and Tofu"], "Tofu went to live with my sister", "updated", [0]),
        (["Is on a keto diet"], "kicked keto to the curb, back on bread", "updated", [0]),
        # ... but a place not named again, or a change said outright, still replaces.
        (["Works part-time at Target"], "Target finally made me full-time!", "updated", [0]),
        (
            ["Lives with parents in Pune"],
            "Shifted out of my parents' house, now in my own 1BHK in Baner",
            "updated",
            [0],
        ),
        # A plan decided against; a named apartment moved into; unpacking somewhere; an apron hung
        # up; a thing named again tomorrow.
        (["Plans to move to Calgary"], "we decided against calgary, too cold", "updated", [0]),
        (
            ["Lives in Sapporo"],
            "the movers left everything at our Fukuoka apartment",
            "updated",
            [0],
        ),
        (["Lives in Tunis"], "just finished unpacking in Sfax", "updated", [0]),
        (
            ["Works as a line cook at a hotel"],
            "hung up my apron at the hotel for good",
            "updated",
            [0],
        ),
        (
            ["Works as a fisherman out of Killybegs"],
            "back out on the boat from killybegs tomorrow",
            "deduplicated",
            [0],
        ),
        # Divorced against never married; "as a vegan" restated with no comma.
        (["Has never been married"], "my first husband and I divorced in 2010", "conflict", [0]),
        (["Is vegan"], "as a vegan the cheese aisle is just sad", "deduplicated", [0]),
        # A part of the thing is new, not the thing; a shout is no name; a count is no name.
        (
            ["Plays cello in an orchestra"],
            "orchestra tonight and my cello needs new strings",
            "deduplicated",
            [0],
        ),
        (["Has a dog named Simba"], "simba chewed my charger AGAIN", "deduplicated", [0]),
        (
            ["Works as a midwife at Rigshospitalet"],
            "long day at Rigshospitalet, 3 deliveries before lunch",
            "deduplicated",
            [0],
        ),
    ],
)
def test_contradictions_corrections_and_changes(
    existing: list[str], new: str, outcome: str, targets: list[int]
) -> None:
    assert _decide(existing, new) == (outcome, targets)


def test_an_unsure_replacement_waits_for_a_person_by_provenance() -> None:
    existing, new = ["The user reads the Times."], "The user reads the Post now."
    assert _decide(existing, new, "user") == ("updated", [0])
    assert _decide(existing, new, "extraction") == ("conflict", [0])
    strict = Policy(apply_at={"user": 0.99})
    known = [Known("0", existing[0], claims_of(existing[0]))]
    assert reconcile(new, claims_of(new), known, policy=strict).outcome == "conflict"


@pytest.mark.parametrize(
    ("existing", "new", "history"),
    [
        (["The user works at Zalando."], "I left Zalando", True),
        (["Is vegan."], "i'm not vegan anymore", True),
        ([], "I used to smoke a pack a day", True),
        ([], "The user no longer has a VW Golf.", True),  # a car had, had no more
        # How things stand now: no value named, or nothing current to end.
        (["The user works at Wayfair."], "got laid off yesterday", False),
        (["The user has a dog named Rufus."], "Rufus passed away last week", False),
        ([], "I no longer eat meat", False),
        ([], "I don't drink", False),
        (["The user lives in Leeds."], "I moved to Manchester", False),
        # A past job is the user's story; a past pastime is what they no longer do.
        ([], "I was a bank teller for 5 years", False),
        ([], "I've lived in Dublin my whole life", False),
        # A phone or car had before is one the user has no more.
        (["Uses an iPhone 15"], "The user used to use a Pixel 6.", True),
    ],
)
def test_an_ending_is_history(existing: list[str], new: str, history: bool) -> None:
    known = [Known(str(i), text, claims_of(text)) for i, text in enumerate(existing)]
    assert reconcile(new, claims_of(new), known).history is history


def test_a_fact_no_claim_is_read_from_falls_back_to_the_text() -> None:
    known = [Known("0", "Zorblax glimmers at dusk", ())]
    verdict = reconcile("zorblax glimmers at dusk!", (), known)
    assert verdict.outcome == "deduplicated"


def test_keys() -> None:
    assert subject_key("The user") == subject_key("user") == subject_key(None) == "user"
    assert subject_key("the user's Mum") == subject_key("user's mother")
    assert value_key("the 14th of March") == value_key("March 14") == ("03-14",)
    assert value_key("Björn") == value_key("bjorn")
    assert value_key("three cats") == value_key("3 cat")
    assert value_key("lab Max") == value_key("Labrador Max")  # a pet's kind, short
    assert value_key("uke") == value_key("ukulele")
    assert match_values("Seattle, WA", "Seattle") == "narrower"
    assert match_values("Portland", "Boston") == "differs"
    # A name and its short form are one person; a name inside another is not.
    assert short_for("Seun", "Oluwaseun")
    assert short_for("Alex", "Alexandra")
    assert not short_for("Ian", "Brian")


@pytest.mark.parametrize(
    ("existing", "new", "outcome"),
    [
        # A trip moved to another date is the planned trip, not a second one.
        (
            ["Plans to visit Peru in May 2026"],
            "we've pushed the Peru trip back to August",
            "updated",
        ),
        (["Plans to visit Peru in May 2026"], "we pushed the Chile trip to August", "added"),
        # An age said in passing restates; years older with no birthday said contradicts.
        (["Age: 38"], "as a 38 year old, should I get a colonoscopy?", "deduplicated"),
        (["User is 25"], "I'm 61 and thinking about downsizing", "conflict"),
        (["User is 47"], "my 70th is coming up in June", "conflict"),
        (["User is 29"], "my 30th is next month!", "updated"),
        # A meal against a diet, said with a superlative, is still a meal.
        (["Is vegetarian"], "had the most incredible sirloin of my life last night", "conflict"),
        # An allergy outgrown, a coffee convert, a third child, a course finished or left.
        (["Allergic to eggs"], "turns out I've outgrown my egg allergy", "updated"),
        (["Prefers tea over coffee"], "I've become a real coffee person this year", "updated"),
        (["Has two children"], "we welcomed our third little one on Friday", "updated"),
        (["Has two kids: Ana (5) and Rui (2)"], "we had our third baby on Friday", "updated"),
        (["Is studying for an MSc in Physics at Leeds"], "graduated from Leeds in July", "updated"),
        (["Is doing a PhD in history at UCL"], "I dropped out of the UCL PhD", "updated"),
        (["Is doing a PhD in history at UCL"], "my brother dropped out of the UCL PhD", "added"),
        # A diet's word said of food or a shop is the diet again; against it, not.
        (["Follows a kosher diet"], "where can I find kosher bakeries in Antwerp?", "deduplicated"),
        (["Follows a halal diet"], "I'm not halal anymore", "updated"),
        # A pet the user names against "no pets" is a contradiction.
        (["Has no pets"], "my two hamsters keep me up at night", "conflict"),
        (["Has no pets"], "my neighbour's dog keeps barking", "added"),
        # Engaged to someone, then married to them.
        (["The user is engaged to Ines."], "my husband Ines says hi", "updated"),
    ],
)
def test_changes_said_in_chat_are_related(existing: list[str], new: str, outcome: str) -> None:
    assert _decide(existing, new)[0] == outcome


@pytest.mark.parametrize(
    ("new", "history"),
    [
        ("moved out of Tampines last week", True),
        ("I resigned from Infosys", True),
        ("I sold my kayak", True),
        ("I quit smoking", False),
        ("I no longer eat meat", False),
        ("got laid off yesterday", False),
    ],
)
def test_a_home_or_job_left_behind_is_history_even_unknown(new: str, history: bool) -> None:
    assert reconcile(new, claims_of(new), []).history is history


@pytest.mark.parametrize(
    ("existing", "new", "outcome"),
    [
        # A name memory holds, typed in lower case, even beside other claims.
        (
            ["Brother Tomas lives in Braga"],
            "tomas moved from braga to faro, so my trips got longer",
            "updated",
        ),
        # Moves said as a move made, a move back home, a relocation since, a settling in.
        (["Lives in Quito"], "we finally made the move to Cuenca in May", "updated"),
        (["Lives in Quito"], "since relocating to Cuenca in May I sleep better", "updated"),
        (["Lives in Quito"], "settling into Cuenca now, slowly", "updated"),
        # A car or a pet named against "none"; someone else's is not the user's.
        (["Doesn't own a car"], "my Corolla needs new tyres again", "conflict"),
        (["Doesn't own a car"], "my dad's car needs new tyres", "added"),
        # "As a ..." says as if memory knew it: a different job is a contradiction.
        (
            ["Works as an accountant"],
            "As a primary school teacher, how do I pace a lesson?",
            "conflict",
        ),
        (["Works as an accountant"], "As an accountant I dread April", "deduplicated"),
        (
            ["Works at Aldi"],
            "As someone who's been at Lidl for three years, am I due a raise?",
            "conflict",
        ),
        # An employer named on the way to something else.
        (["Works at Siemens"], "my manager at Bosch wants the report by noon", "conflict"),
        (["Works at Siemens"], "my manager at Siemens is on leave", "deduplicated"),
        # A pastime done again; another sense of its word, or one of a kind, is news.
        (
            ["Hobby: bouldering"],
            "bouldering session was brutal tonight, forearms are gone",
            "deduplicated",
        ),
        (["Plays the bass"], "went bass fishing with my uncle", "added"),
        # A named person's age after their name, in a fact's text, is theirs to change.
        (["Has a son named Kofi, age 8"], "Kofi turned 9 on sunday", "updated"),
        (["Has a son, Kofi, who is 8"], "Kofi turned 9 on sunday", "updated"),
    ],
)
def test_things_said_in_passing_are_related(existing: list[str], new: str, outcome: str) -> None:
    assert _decide(existing, new)[0] == outcome


@pytest.mark.parametrize(
    ("existing", "new", "outcome"),
    [
        (
            ["Cycles competitively"],
            "since the crash I've stopped cycling and switched to yoga",
            "updated",
        ),
        (["Runs marathons"], "I can't run anymore, so I swim instead", "updated"),
        (["Works as a freelance illustrator"], "Pixar hired me full-time!", "updated"),
        (
            ["Plans a trip to Oslo in spring"],
            "the Oslo trip is off for now",
            "updated",
        ),
        (
            ["Plans to run the Paris Marathon in April"],
            "deferred my Paris Marathon entry to 2027",
            "updated",
        ),
        (["Has asthma"], "my asthma is finally in remission, says the consultant", "updated"),
        (["Has no known allergies"], "I carry an EpiPen for wasps", "conflict"),
        (["Has no known allergies"], "my daughter's egg allergy is back", "added"),
    ],
)
def test_endings_and_allergies_said_in_chat_are_related(
    existing: list[str], new: str, outcome: str
) -> None:
    assert _decide(existing, new)[0] == outcome


def test_a_job_lost_stays_how_things_stand() -> None:
    said = "got laid off from the Teleperformance call center in march"
    assert reconcile(said, claims_of(said), []).history is False


def test_a_pastime_named_with_a_new_place_is_news() -> None:
    new = "They have played five-a-side every Wednesday in Manchester for years."
    assert _decide(["The user plays five-a-side."], new)[0] == "added"


def test_a_lower_case_name_is_read_again_but_a_writers_marks_are_kept() -> None:
    fact = "Sister Maya lives in Porto"
    known = [Known("0", fact, claims_of(fact))]
    said = "maya lives in Lisbon"
    assert reconcile(said, claims_of(said), known).outcome == "updated"
    # A retrospective that said "also" (a second home) keeps its reading.
    also = (Claim("Maya", "residence", "Lisbon", also=True),)
    assert reconcile(said, also, known).outcome == "added"


def test_a_pet_named_by_its_kinds_short_name_is_the_same_pet() -> None:
    existing = ["Has a Labrador named Max", "Lives in Perth"]
    assert _decide(existing, "Max, our lab, needs a bath after the beach") == ("deduplicated", [0])


def test_a_weddings_thing_is_no_marrying() -> None:
    said = "I've never been married, so wedding planning is a total mystery to me."
    assert _decide(["The user is married to Paul."], said) == ("conflict", [0])
    assert _decide(["The user is single."], "wedding dress shopping with my sister today")[0] != (
        "updated"
    )


def test_a_whole_life_somewhere_else_contradicts_a_home() -> None:
    said = "i've lived my whole life in lisbon, never lived anywhere else"
    assert _decide(["The user lives in Porto."], said) == ("conflict", [0])
    assert _decide(["The user lives in Lisbon."], said) == ("deduplicated", [0])


def test_a_diet_that_excludes_a_sausage_the_user_ate() -> None:
    existing = ["The user eats currywurst several times a week."]
    assert _decide(existing, "since march i'm pescatarian, no meat at all") == ("updated", [0])


@pytest.mark.parametrize(
    ("existing", "new", "outcome", "targets"),
    [
        # A favourite against a dislike: the opposite unsaid waits for a person; said as an
        # ending, it replaces; another thing is news.
        (["Hates olives"], "Olives are my favourite snack, honestly", "conflict", [0]),
        (["Mango is my favourite fruit"], "I can't stand mango anymore", "updated", [0]),
        (["Hates olives"], "Pistachios are my favourite snack", "added", []),
        # The same post ranked up, said with where it is.
        (["Works as an ICU nurse"], "Took the charge nurse position in the ICU", "updated", [0]),
        # A degree worked on is a course of study, and leaving it ends it.
        (["Is working on a PhD in geology"], "I dropped out of the geology PhD", "updated", [0]),
        # A second job beside the first; someone else's car.
        (
            ["Works at Aldi as a cashier"],
            "picked up evening shifts at Boots on top of Aldi",
            "added",
            [],
        ),
        (["Drives a Honda Jazz"], "my dad sold his Volvo and bought a Skoda", "added", []),
        # A named pet's new age replaces its old one.
        (["The user's dog Bruno is 4 years old."], "Bruno turned 5 on Sunday!", "updated", [0]),
        # A shift at the workplace memory knows restates it.
        (["Works at Lidl"], "Another long Sunday shift at Lidl, ugh.", "deduplicated", [0]),
        (["Works at Tesco"], "another 12 hour shift at the Tesco depot", "deduplicated", [0]),
    ],
)
def test_favourites_ranks_courses_and_second_jobs(
    existing: list[str], new: str, outcome: str, targets: list[int]
) -> None:
    assert _decide(existing, new) == (outcome, targets)
