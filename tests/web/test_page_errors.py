"""Bad links answer with a styled page and a way back; the API keeps its JSON errors."""

from __future__ import annotations

import httpx2 as httpx
import pytest

pytestmark = pytest.mark.browser

BAD_LINKS = [
    ("/new/slimetrail?size=99", 400, "size"),
    ("/new/nonexistent", 400, "nonexistent"),
    ("/new/slimetrail?level=x", 400, "level"),
    ("/rules/foo", 404, "foo"),
    ("/no/such/page", 404, "/no/such/page"),
    ("/play/doesnotexist", 404, "doesnotexist"),
]


def test_bad_links_show_a_styled_page_with_a_way_back(live_server, open_page) -> None:
    for path, status, named in BAD_LINKS:
        page = open_page(live_server + path)
        response = httpx.get(live_server + path, follow_redirects=False)
        assert response.status_code == status, path
        assert response.headers["content-type"].startswith("text/html"), path
        assert page.locator("h1").inner_text(), path
        assert named in page.locator(".error-detail").inner_text(), path
        # Styled like the rest of the site: the header, the stylesheet applied.
        assert page.locator(".site-header .brand").is_visible(), path
        assert page.eval_on_selector("main .error-box", "e => getComputedStyle(e).borderRadius")
        way_back = page.get_by_role("link", name="Start a new game")
        assert way_back.evaluate("a => a.href") == live_server + "/", path
    # The way back followed once: the home page is the site's heaviest to draw (every game's
    # board), and each error page's link is the same one, checked above.
    way_back.click()
    page.wait_for_url(live_server + "/")
    assert page.locator("h1").inner_text() == "Trails, snakes and stones"


def test_a_wrong_seat_token_says_so_and_offers_to_watch(live_server, open_page) -> None:
    created = httpx.post(f"{live_server}/api/matches", json={"game": "slimetrail"}).json()
    page = open_page(f"{live_server}/play/{created['id']}?seat=not-a-token")
    assert page.locator("h1").inner_text() == "Not your seat"
    assert "not valid" in page.locator(".error-detail").inner_text()
    assert page.locator("#board").count() == 0  # no half-drawn play page
    page.get_by_role("link", name="Watch this game").click()
    page.wait_for_selector("#board [data-cell]", state="attached")
    assert "watching" in page.locator("#status").inner_text()


def test_the_api_keeps_json_errors(live_server) -> None:
    for path in ("/api/matches/doesnotexist", "/api/nope", "/api/matches/x/view?ply=z"):
        response = httpx.get(live_server + path)
        assert response.status_code in (404, 422), path
        assert response.headers["content-type"] == "application/json", path
        assert "detail" in response.json()
    bad = httpx.post(f"{live_server}/api/matches", json={"game": "nonexistent"})
    assert bad.status_code == 400 and "nonexistent" in bad.json()["detail"]
