"""A synthetic set killed while rendering is not taken for a whole one (issue 24, defect 11):
its data.yaml, by which ``train`` and ``eval`` decide a set is done, is written last."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from run_cardref import ROOT

from vision.synth.dataset import is_complete


def test_a_render_killed_halfway_leaves_no_data_yaml_and_is_rendered_again(tmp_path):
    out = tmp_path / "set"
    cmd = [sys.executable, "-m", "vision.commands.main", "synth", "--out", str(out), "--images", "40",
           "--imgsz", "320", "--workers", "1", "--quiet"]
    render = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not any((out / "images" / "train").glob("*.jpg")) and render.poll() is None:
            time.sleep(0.05)  # waits for the first image, whatever the machine's speed
        render.send_signal(signal.SIGKILL)
        render.wait()
    finally:
        render.kill()
    assert render.returncode == -signal.SIGKILL, render.stderr.read().decode()
    assert not (out / "data.yaml").exists() and not is_complete(out)
    done = subprocess.run([*cmd[:7], "3", *cmd[8:]], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (out / "data.yaml").exists() and is_complete(out)
    (out / "synth.json").write_text((out / "synth.json").read_text().replace('"images": 3', '"images": 40'))
    assert not is_complete(out)  # a data.yaml with fewer images than its record says
