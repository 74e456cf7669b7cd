"""What the players get from ``cardref replay``: the report read in a real headless Chromium
(the result in words, rounds and turns, the plot, every move's frame with the card marked, a
click that plays the annotated video from that moment, the name check's other names, the
final table), and the annotated video and subtitles themselves."""

from __future__ import annotations

import base64
import json
import re

import cv2
import numpy as np
import pytest
from run_cardref import replay
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_live import unsure_detections

from referee.cards import RANKS
from vision.overlay import MARK, panel_width, wrap

# A replay with its annotated video, opened in a real Chromium (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow

WAIT_S = 60  # a ceiling for a loaded machine, not a speed requirement


@pytest.fixture(scope="module")
def replayed(game_video, true_detections, tmp_path_factory):
    """The rendered game replayed with one card named unsurely all game (a name check)."""
    truth = [json.loads(line) for line in (game_video / "observations.jsonl").read_text().splitlines()]
    card = next(o["card"] for o in truth if o.get("from") == "draw_pile" and o["card"] != "JK")
    seen = {o.get("card") for o in truth}
    decoy = next(f"{rank}{card[-1]}" for rank in RANKS if f"{rank}{card[-1]}" not in seen)
    tmp = tmp_path_factory.mktemp("report")
    detections = unsure_detections(true_detections, tmp / "unsure.jsonl", card, decoy)
    out = tmp / "replay"
    r = replay(game_video, out, "--detections", str(detections))
    assert r.returncode == 0, r.stderr
    return out, card, decoy


def decoded(uri: str) -> np.ndarray:
    jpg = base64.b64decode(uri.split(",", 1)[1])
    return cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_COLOR)


def near(image: np.ndarray, colour: tuple[int, int, int], tolerance: int = 40) -> np.ndarray:
    return (np.abs(image.astype(int) - np.array(colour)).max(axis=2) <= tolerance)


def test_the_report_reads_as_the_game_went(replayed, browser, tmp_path):
    out, card, decoy = replayed
    summary = json.loads((out / "summary.json").read_text())
    browser.get((out / "report.html").as_uri())
    assert browser.find_element(By.ID, "result").text == "Game unfinished"
    sections = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    assert sections[:4] == ["Over the game", "Set-up", "Age revolution, round 1", "Age revolution, round 2"]
    assert sections[-1] == "Final table"
    assert {"red's turn", "black's turn"} <= {h.text for h in browser.find_elements(By.TAG_NAME, "h3")}
    legend = browser.find_element(By.CSS_SELECTOR, "#plot svg").get_attribute("textContent")
    assert all(f"{suit} damage" in legend for suit in ("spades", "clubs", "hearts", "diamonds"))

    moves = browser.find_elements(By.CSS_SELECTOR, ".moment[data-kind=observation]")
    assert len(moves) == summary["observations"] == 14
    for m in moves:  # every move with its frame, readable, and a close view of the card
        frame = m.find_element(By.CSS_SELECTOR, "img.frame")
        zoom = m.find_element(By.CSS_SELECTOR, "img.zoom")
        assert browser.execute_script("return arguments[0].naturalWidth", frame) == 640
        assert browser.execute_script("return arguments[0].naturalHeight", zoom) == 220
        # the moved card is outlined in the frame, and fills the middle of the close view
        assert near(decoded(frame.get_attribute("src")), MARK).sum() > 200
        close = decoded(zoom.get_attribute("src"))
        h, w = close.shape[:2]
        assert near(close, MARK)[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4].sum() > 100

    check = next(m for m in moves if m.find_element(By.CLASS_NAME, "x").text.startswith(decoy))
    assert "flag" in check.get_attribute("class")
    names = check.find_element(By.CLASS_NAME, "names").text
    assert re.fullmatch(rf"likely names: {decoy} 0\.45, {card} 0\.35, \S+ 0\.10", names), names

    target = moves[6]
    t = float(target.get_attribute("data-t"))
    browser.execute_script("arguments[0].scrollIntoView()", target)
    target.find_element(By.CLASS_NAME, "x").click()
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda b: b.execute_script(
        "const v = document.getElementById('video');"
        f"return v.readyState >= 1 && !v.seeking && Math.abs(v.currentTime - {t}) < 0.5"))
    assert browser.execute_script("return document.getElementById('video').error") is None
    assert browser.find_element(By.ID, "now").text == target.find_element(By.CLASS_NAME, "x").text
    browser.execute_script("document.getElementById('video').pause()")

    castle = browser.find_element(By.CSS_SELECTOR, "#final ~ .sides [data-zone=castle_spades]")
    assert castle.text == "castle: AS"
    browser.save_screenshot(str(tmp_path / "report.png"))


def test_the_annotated_video_names_the_cards_between_reads_beside_its_panel(replayed, game_video):
    out, _, _ = replayed
    summary = json.loads((out / "summary.json").read_text())
    source = cv2.VideoCapture(str(game_video / "video.mp4"))
    annotated = cv2.VideoCapture(str(out / "annotated.mp4"))
    w = int(source.get(cv2.CAP_PROP_FRAME_WIDTH))
    assert int(annotated.get(cv2.CAP_PROP_FRAME_WIDTH)) == w + panel_width(w)
    reads = {e["frame"] for e in map(json.loads, (out / "events.jsonl").open()) if e["kind"] == "read"}
    shown = 0
    for i in range(summary["frames"]):
        ok, a = annotated.read()
        ok2, s = source.read()
        assert ok and ok2, i
        if i <= min(reads) or i % 10:
            continue
        table, panel = a[:, :w], a[:, w:]
        # The cards of the last read stay named on every frame, not just on the frames read.
        assert near(table, (60, 220, 60)).sum() > 500 or i in reads, i
        # The panel is beside the table: its bottom rows are the camera's, not covered.
        bottom = np.abs(table[-80:].astype(int) - s[-80:].astype(int)).mean()
        assert bottom < 12, (i, bottom)
        assert panel.mean() < 60 and panel.max() > 150  # dark, with text
        shown += 1
    assert shown > 50


def test_subtitles_last_until_the_next_announcement_and_long_lines_wrap(replayed):
    out, _, _ = replayed
    blocks = (out / "announcements.srt").read_text().strip().split("\n\n")
    times = [re.search(r"(\S+) --> (\S+)", b).groups() for b in blocks]
    assert len(times) > 5
    assert all(end == start for (_, end), (start, _) in zip(times, times[1:], strict=False))
    summary = json.loads((out / "summary.json").read_text())
    h, m, s = times[-1][1].split(":")
    assert abs(int(h) * 3600 + int(m) * 60 + float(s.replace(",", ".")) - summary["video_seconds"]) < 0.01
    said = [json.loads(line) for line in (out / "events.jsonl").open()]
    longest = max((e["text"] for e in said if e["kind"] == "announcement"), key=len)
    assert len(longest) > 150
    lines = wrap(longest, 400, 0.5)
    assert len(lines) > 2 and " ".join(lines) == " ".join(longest.split())
    assert all(cv2.getTextSize(line, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)[0][0] <= 400 for line in lines)
