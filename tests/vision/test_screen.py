"""The game-night screen (``cardref live ... --serve``) opened in a real headless Chromium while
the live referee follows a rendered game video: it updates by itself, shows the game, and its
buttons answer the camera's name check as a number key would."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from run_cardref import ROOT, cardref
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_live import observations_in, unsure_detections

from referee.cards import RANKS
from referee.errors import CardrefError
from vision.replay_eval import final_moves, key
from vision.screen.server import Hub, ScreenServer, parse_address

# Live on a rendered video with a real Chromium driving the screen (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow

WAIT_S = 120  # a ceiling for a loaded machine, not a speed requirement


def start_live(video, detections, log):
    proc = subprocess.Popen(
        [sys.executable, "-m", "vision.commands.main", "live", "royal_family", "--camera", str(video),
         "--headless", "--log", str(log), "--detections", str(detections), "--serve", "127.0.0.1:0"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Ctrl-C as at a terminal: a shell's background job (``make test &``, a CI runner's) hands
        # its children SIGINT ignored, and Python then never turns it into KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first = proc.stdout.readline()
    assert first.startswith("game-night screen: http://127.0.0.1:"), first + proc.stderr.read()
    return proc, first.split(": ", 1)[1].strip()


def seq(browser) -> int:
    """The number of the state the page shows."""
    return int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)


def test_the_screen_follows_the_game_and_its_buttons_answer_a_name_check(
        game_video, true_detections, tmp_path, browser):
    truth = [json.loads(line) for line in (game_video / "observations.jsonl").read_text().splitlines()]
    card = next(o["card"] for o in truth if o.get("from") == "draw_pile" and o["card"] != "JK")
    seen = {o.get("card") for o in truth}
    decoy = next(f"{rank}{card[-1]}" for rank in RANKS if f"{rank}{card[-1]}" not in seen)
    detections = unsure_detections(true_detections, tmp_path / "unsure.jsonl", card, decoy)
    log = tmp_path / "game.jsonl"
    proc, url = start_live(game_video / "video.mp4", detections, log)
    try:
        browser.get(url)
        wait = WebDriverWait(browser, WAIT_S)
        wait.until(lambda b: b.execute_script("return document.getElementById('camera').naturalWidth > 0"))
        first = seq(browser)
        # The page was loaded once: newer states come by themselves (server-sent events).
        wait.until(lambda b: seq(b) > first)
        wait.until(lambda b: b.find_element(By.ID, "question").is_displayed())
        question = browser.find_element(By.ID, "question-text").text
        assert question == f"{decoy} was read unsurely: which card is it?"
        buttons = browser.find_elements(By.CSS_SELECTOR, "#choices button")
        assert [b.text.split()[1] for b in buttons[:2]] == [decoy, card]
        browser.save_screenshot(str(tmp_path / "check.png"))
        buttons[1].click()  # "2 <card>": the card really moved
        said = f"{decoy} was {card}: the game is re-read"
        wait.until(lambda b: said in b.find_element(By.ID, "announcements").text)
        # When the video ends the screen stays, with the game as the referee has it now.
        while True:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            if line.startswith("the video has ended"):
                break
        state = json.load(urllib.request.urlopen(url + "state"))
        wait.until(lambda b: seq(b) >= state["seq"])
        summary = state["summary"]
        assert browser.find_element(By.ID, "now").text == summary["now"] != ""
        assert summary["active"] in ("black", "red") and summary["fields"]["round"] >= 1
        assert [s["name"] for s in summary["sides"]] == ["spades", "clubs", "hearts", "diamonds"]
        panels = browser.find_elements(By.CSS_SELECTOR, "#sides .side")
        assert [p.get_attribute("data-side") for p in panels] == ["spades", "clubs", "hearts", "diamonds"]
        assert all("damage" in p.text for p in panels)
        castle = browser.find_element(By.CSS_SELECTOR, "[data-zone=castle_spades]")
        assert castle.text == "castle: AS"
        legal = browser.find_elements(By.CSS_SELECTOR, "#legal li")
        assert len(legal) == len(state["legal"]) > 0
        assert browser.find_element(By.ID, "legal-title").text == f"Legal moves ({len(legal)})"
        shown = browser.find_element(By.ID, "announcements").find_elements(By.TAG_NAME, "li")
        newest_first = [a["text"] for a in reversed(state["announcements"])]
        assert [li.text.split(None, 1)[1] for li in shown] == newest_first
        browser.save_screenshot(str(tmp_path / "screen.png"))
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "game log:" in out and "Traceback" not in err
    fed = [{"kind": "observation", "data": {**o, "seq": i}} for i, o in enumerate(observations_in(log))]
    assert final_moves(fed) == [key(o) for o in truth if o.get("type", "move") == "move"]


def test_a_bad_address_or_answer_is_refused_in_one_line(tmp_path):
    r = cardref("live", "royal_family", "--camera", str(tmp_path / "none.mp4"), "--headless",
                "--serve", "localhost:http", "--log", str(tmp_path / "g.jsonl"))
    assert r.returncode == 2
    assert r.stderr == ("cardref live: error: --serve localhost:http: expected [HOST:]PORT, "
                        "such as 8000 or 0.0.0.0:8000\n")
    assert parse_address("8000") == ("127.0.0.1", 8000)
    assert parse_address("0.0.0.0:8080") == ("0.0.0.0", 8080)
    hub = Hub()
    server = ScreenServer("127.0.0.1:0", hub)
    try:
        assert post(server.url + "answer", b'{"key": 12}') == (
            400, {"error": "key: expected a choice from 1 to 9, got 12"})
        assert post(server.url + "answer", b"2")[0] == 400
        with pytest.raises(urllib.error.HTTPError, match="404"):  # no camera image yet
            urllib.request.urlopen(server.url + "frame.jpg")
        assert post(server.url + "answer", b'{"key": 2}') == (202, {"queued": 2})
        assert hub.take_keys() == [2] and hub.take_keys() == []
        with pytest.raises(CardrefError, match="cannot listen there"):
            ScreenServer(f"127.0.0.1:{server.port}", Hub())  # the port is taken
    finally:
        server.close()


def post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
