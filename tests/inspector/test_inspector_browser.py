"""The inspector used as a person uses it, in Chromium: log in through the URL ``memoryd
inspect`` prints, find a fact and open its history with the keyboard, step the time-travel
slider back before a supersede and see the old value, approve a review item and see the fact
change, and fail to reach another namespace with a limited token.

Each test works in a namespace of its own on the module's daemon. With
``INSPECTOR_SCREENSHOTS=<dir>`` the tests also save the screenshots ``docs/inspector.md`` shows.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from tests.browser_fixtures import LIMITED_TOKEN, Daemon

# The session's loop: the one the session's browser lives on.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]
SHOTS = os.environ.get("INSPECTOR_SCREENSHOTS")


@pytest_asyncio.fixture(loop_scope="session")
async def page(chromium: Browser) -> AsyncIterator[Page]:
    """A fresh browser context (no cookies) on a laptop-sized window."""
    context = await chromium.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(10_000)
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def shot(page: Page, name: str) -> None:
    """Save a screenshot for the docs when asked to."""
    if SHOTS:
        await page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


async def press_and_load(page: Page, key: str) -> None:
    """Press a key that opens a page and wait until that page (and its script) has loaded."""
    async with page.expect_navigation():
        await page.keyboard.press(key)


async def log_in(page: Page, daemon: Daemon, namespace: str) -> None:
    """Open the one-time URL, then pick the namespace in the header with the keyboard."""
    await page.goto(daemon.inspect_url())
    await expect(page.locator("h1")).to_have_text("Facts")
    await page.locator("#ns").fill(namespace)
    async with page.expect_navigation():
        await page.locator("#ns").press("Enter")
    await expect(page).to_have_url(re.compile(rf"ns={namespace}"))


async def test_find_a_fact_and_open_its_history_with_the_keyboard(
    page: Page, inspected: Daemon
) -> None:
    old = inspected.api("POST", "/v1/facts", {"text": "The user lives in Boston."}, "b1")
    inspected.api(
        "POST", f"/v1/facts/{old['fact_id']}/supersede", {"text": "The user lives in Berlin."}, "b1"
    )
    await log_in(page, inspected, "b1")
    await shot(page, "facts")
    await page.keyboard.press("/")
    await page.keyboard.type("berlin")
    await press_and_load(page, "Enter")
    await expect(page.locator("table.rows tbody tr")).to_have_count(1)
    await page.keyboard.press("j")
    await press_and_load(page, "Enter")
    await expect(page.locator("#fact-text")).to_have_text("The user lives in Berlin.")
    chain = page.locator("ol.chain li")
    await expect(chain).to_have_count(2)
    await expect(chain.first).to_contain_text("Boston")
    versions = await page.locator("#versions tbody tr").count()
    assert versions >= 1
    await expect(page.locator("svg rect.version")).to_have_count(versions)  # one box a version
    await shot(page, "fact")


async def test_step_back_before_a_supersede_and_see_the_old_value(
    page: Page, inspected: Daemon
) -> None:
    written = inspected.api("POST", "/v1/facts", {"text": "The user drives a Volvo."}, "b2")
    before = written["position"]
    replaced = inspected.api(
        "POST",
        f"/v1/facts/{written['fact_id']}/supersede",
        {"text": "The user drives a Tesla."},
        "b2",
    )
    await log_in(page, inspected, "b2")
    await press_and_load(page, "2")
    await expect(page.locator("h1")).to_have_text("Time travel")
    await expect(page.locator("#summary")).to_contain_text("nothing differs")
    await page.locator("#known_at").focus()
    for _ in range(replaced["position"] - before):
        await press_and_load(page, "ArrowLeft")
        await expect(page.locator("#known_at")).to_be_focused()
    await expect(page.locator("#known_at_shown")).to_have_text(str(before))
    gone = page.locator("tr.change-gone")
    await expect(gone).to_contain_text("The user drives a Volvo.")
    await expect(gone).to_contain_text("replaced or forgotten since")
    await expect(page.locator("tr.change-new")).to_contain_text("The user drives a Tesla.")
    await shot(page, "time-travel")


async def test_approve_a_review_item_and_see_the_fact_change(page: Page, inspected: Daemon) -> None:
    inspected.api("POST", "/v1/facts", {"text": "The user is vegetarian."}, "b3")
    conflict = inspected.api(
        "POST", "/v1/facts", {"text": "The user eats steak every day.", "provenance": "tool"}, "b3"
    )
    assert conflict["outcome"] == "conflict"
    await log_in(page, inspected, "b3")
    await press_and_load(page, "5")
    await expect(page.locator("h1")).to_have_text("Review")
    await shot(page, "review")
    await page.keyboard.press("j")
    await press_and_load(page, "a")
    await expect(page.locator("p.done")).to_have_text("Item approved.")
    await press_and_load(page, "1")
    rows = page.locator("table.rows tbody tr")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text("The user eats steak every day.")
    async with page.expect_navigation():
        await page.locator("#status").select_option("superseded")
    await expect(page.locator("table.rows tbody")).to_contain_text("The user is vegetarian.")


async def test_a_limited_token_cannot_reach_another_namespace(
    page: Page, inspected: Daemon
) -> None:
    inspected.api("POST", "/v1/facts", {"text": "The user in a likes tea."}, "a")
    inspected.api("POST", "/v1/facts", {"text": "A secret of namespace b4."}, "b4")
    login = inspected.call("POST", "/inspect/session", token=LIMITED_TOKEN)
    assert login["namespaces"] == ["a"]
    await page.goto(login["url"])
    await expect(page.locator("table.rows tbody")).to_contain_text("likes tea")
    await expect(page.locator("#ns option")).to_have_text(["a"])
    answer = await page.goto(f"{inspected.base}/inspect/facts?ns=b4")
    assert answer is not None
    assert answer.status == 403
    await expect(page.locator("h1")).to_contain_text("may not see namespace 'b4'")
    await expect(page.locator("body")).not_to_contain_text("secret")


async def test_every_page_renders_for_the_docs(page: Page, inspected: Daemon) -> None:
    said = inspected.api(
        "POST", "/v1/conversations/c1/messages", {"role": "user", "content": "hi"}, "b5"
    )
    inspected.api(
        "POST", "/v1/conversations/c1/fork", {"through_message_id": said["message_id"]}, "b5"
    )
    await log_in(page, inspected, "b5")
    for key, title, name in (
        ("3", "Timeline", "timeline"),
        ("4", "Conversations", "conversations"),
        ("6", "Consolidation plans", "plans"),
        ("7", "Health", "health"),
    ):
        await press_and_load(page, key)
        await expect(page.locator("h1")).to_contain_text(title)
        await shot(page, name)
    await press_and_load(page, "4")
    await page.keyboard.press("j")
    await press_and_load(page, "Enter")
    await expect(page.locator("h1")).to_have_text("Conversation c1")
    await shot(page, "conversation")
