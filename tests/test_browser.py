"""The main journey in a real browser: upload a contract through the drop zone, ask, click the
first citation, see the highlighted page. Saves a screenshot of every page to tmp/screenshots/.

Drives Debian's chromium through Playwright (never a downloaded browser) against the app
started on a free localhost port, with the project's own Streamlit configuration; every
request the browser makes must stay on that host, and the app's server, run under the
network guard (tests/network_guard.py), must reach nothing at all.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.service import Library
from engine.settings import PROJECT_ROOT
from tests.conftest import MUTUAL_NDA
from tests.local_server import free_port, wait_until_healthy
from tests.network_guard import child_environment, guarded_command, read_record

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = PROJECT_ROOT / "tmp" / "screenshots"  # git-ignored; `make screenshots` copies them to docs/
STARTUP_SECONDS = 120
ANSWER_MS = 120_000

playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed (make test installs it with apt)")


@dataclass
class RunningApp:
    url: str
    network: Path  # the network guard's record of the server's network use


@pytest.fixture
def app(sample_library, tmp_path):
    """The app on a copy of the sample store without the Mutual NDA (the test uploads it)."""
    store = tmp_path / "store"
    shutil.copytree(sample_library.settings.store.local, store)
    Library(store).delete(MUTUAL_NDA.name)
    port = free_port()
    streamlit = [
        "streamlit", "run", str(PROJECT_ROOT / "app.py"),
        "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true", "--", "--db", str(store),
    ]  # usage statistics: as .streamlit/config.toml ships them (off), not switched off here
    record = tmp_path / "network.jsonl"
    command = guarded_command(streamlit, record, allowed=[], syscalls=None)  # the server may contact nothing
    log = (tmp_path / "streamlit.log").open("w")
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT, env=child_environment())
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_until_healthy(f"{url}/_stcore/health", STARTUP_SECONDS):
            pytest.fail(f"the app did not start within {STARTUP_SECONDS} s:\n{(tmp_path / 'streamlit.log').read_text()[-3000:]}")
        yield RunningApp(url, record)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(800)  # let charts and images settle
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def open_page(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    page.get_by_role("heading", name=title if title != "Library" else "Contract library").first.wait_for()


def click_first_node(page) -> None:
    """Click the first clause marker where plotly drew it (WebGL points have no DOM element)."""
    page.wait_for_function("() => document.querySelector('.js-plotly-plot')?._fullLayout")
    x, y = page.evaluate(
        """() => {
            const plot = document.querySelector('.js-plotly-plot'), layout = plot._fullLayout;
            const nodes = plot.data.find(trace => trace.customdata), box = plot.getBoundingClientRect();
            return [box.left + layout.margin.l + layout.xaxis.l2p(nodes.x[0]), box.top + layout.margin.t + layout.yaxis.l2p(nodes.y[0])];
        }"""
    )
    page.mouse.click(x, y)


def choose(page, label: str, option: str) -> None:
    """Pick an option of the selectbox with this label, as a user does: open it, click the option."""
    page.get_by_test_id("stSelectbox").filter(has=page.get_by_text(label, exact=True)).first.click()
    page.get_by_role("option", name=option, exact=True).click()


def review_grid_and_playbook(page) -> None:
    """Issue 19 in the browser: a grid column added, filled, a cell's citation opened, the grid
    exported; the default playbook's review, a red finding, its evidence opened."""
    open_page(page, "Review grid")
    page.get_by_placeholder("e.g. How long does confidentiality last?").fill("Which law governs this agreement?")
    page.get_by_role("button", name="Add column").click()
    page.get_by_role("button", name="Fill 3 cells").click()
    page.get_by_text("3 of 3 cells filled").wait_for(timeout=ANSWER_MS)
    shoot(page, "grid")
    choose(page, "Contract", MUTUAL_NDA.name)  # (or a click on its cell in the table, which a scripted click
    choose(page, "Column", "Which law governs this agreement?")  # does not always land while the grid settles)
    chip = page.get_by_role("button", name="[1] Section 10")
    chip.wait_for()
    with page.expect_download() as download:
        page.get_by_role("button", name="Export XLSX").click()
    assert download.value.suggested_filename == "clausegraph-grid.xlsx"
    chip.click()
    page.get_by_role("heading", name="Viewer").wait_for()
    page.get_by_text("Section 10 · page 2").wait_for()

    open_page(page, "Playbook review")
    page.get_by_role("button", name="Review against “Default buyer playbook”").click()
    page.get_by_test_id("stPlotlyChart").wait_for(timeout=ANSWER_MS)
    # a click on the first square (the Mutual NDA, governing law: English law is not accepted) opens that verdict
    square = page.locator(".js-plotly-plot .scatterlayer .points path").first.bounding_box()  # plotly's drag layer lies over it:
    page.mouse.click(square["x"] + square["width"] / 2, square["y"] + square["height"] / 2)  # click where it is drawn
    page.get_by_text("England and Wales: not accepted").first.wait_for()  # while Streamlit reruns, the old panel may still be there
    shoot(page, "review")
    page.get_by_role("button", name="[1] Section 10").click()
    page.get_by_role("heading", name="Viewer").wait_for()
    page.get_by_text("Section 10 · page 2").wait_for()


def test_upload_ask_and_open_the_first_citation_highlighted(app):
    requests: list[str] = []
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-background-networking"]
        )
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.on("request", lambda request: requests.append(request.url))
        page.set_default_timeout(60_000)
        page.goto(app.url)
        page.get_by_role("heading", name="Contract library").wait_for()
        page.get_by_role("heading", name="2 contracts").wait_for()

        # upload through the drop zone
        page.locator("input[type=file]").set_input_files(str(MUTUAL_NDA))
        page.get_by_role("button", name="Add 1 file to the library").click()
        page.get_by_text(f"{MUTUAL_NDA.name}: 2 pages, 14 clauses").wait_for(timeout=ANSWER_MS)
        page.get_by_role("heading", name="3 contracts").wait_for()
        shoot(page, "library")

        # ask
        open_page(page, "Ask")
        page.get_by_text("Extractive mode").wait_for()
        chat = page.get_by_test_id("stChatInputTextArea")
        chat.fill("Which law governs the mutual non-disclosure agreement?")  # all three contracts in scope
        chat.press("Enter")
        first_chip = page.get_by_role("button", name="[1]")
        first_chip.first.wait_for(timeout=ANSWER_MS)
        label = first_chip.first.inner_text()
        page.get_by_text("How the evidence was found").wait_for()
        page.get_by_text("Which law governs the mutual non-disclosure agreement?").first.scroll_into_view_if_needed()
        shoot(page, "ask")

        # the first citation opens the viewer on its page, highlighted
        first_chip.first.click()
        page.get_by_role("heading", name="Viewer").wait_for()
        page.get_by_text("Citation [1] of").wait_for()
        caption = page.get_by_test_id("stImageCaption").first
        caption.wait_for()
        assert "highlighted line" in caption.inner_text()
        cited_page = label.split(" · p. ", 1)[1].split(" ")[0].split("–")[0]
        assert f"page {cited_page} of" in caption.inner_text()
        image = page.get_by_test_id("stImage").locator("img").first
        # the caption can show before the page image has finished loading: wait for it, then judge
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        assert image.evaluate("img => img.naturalWidth > 400")
        shoot(page, "viewer")

        # the other pages render without an error, each captured for the README
        open_page(page, "Search")
        page.get_by_role("button", name="Governing law").click()
        page.get_by_text("passages, best first").wait_for()
        shoot(page, "search")
        open_page(page, "Clause graph")
        page.get_by_test_id("stPlotlyChart").wait_for()
        shoot(page, "graph")
        click_first_node(page)  # a clause clicked in the graph opens in the viewer
        page.get_by_role("heading", name="Viewer").wait_for()
        page.get_by_text("Citation [1] of 1").wait_for()
        open_page(page, "Corpus")
        page.get_by_text("What each contract says").wait_for()
        page.get_by_test_id("stDataFrame").first.wait_for()
        page.get_by_test_id("stMetricValue").first.wait_for()
        shoot(page, "corpus")
        review_grid_and_playbook(page)
        open_page(page, "Contract structure")
        shoot(page, "contract")
        open_page(page, "Settings")
        page.get_by_text("Embedding model (local)").wait_for()
        shoot(page, "settings")
        assert page.get_by_test_id("stException").count() == 0
        browser.close()

    host = app.url.split("//", 1)[1]
    outside = [u for u in requests if not (u.startswith(f"http://{host}") or u.startswith(f"ws://{host}") or u.startswith("data:") or u.startswith("blob:"))]
    assert outside == [], f"the browser reached beyond the app: {sorted(set(outside))}"
    network = read_record(app.network)
    assert host in {e["target"] for e in network if e["verdict"] == "listen"}  # the guard watched the server
    reached = [e for e in network if e["verdict"] == "blocked"]
    assert reached == [], f"the app's server reached out: {reached}"
