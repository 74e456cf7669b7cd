"""``cardref review DIR``: check and fix the labels of a collected dataset in the browser.

Serves a page on http://127.0.0.1:PORT/ (loopback only) showing every frame with its boxes,
flagged and low-confidence frames first. Per frame: change a box's class, delete a box, then
"accept / save": the label file is rewritten atomically. ``--html OUT.html`` writes a static,
read-only page instead (images embedded), to look at or share.

The page's API, for scripts: ``GET /api/items`` lists the frames; ``POST /api/labels`` with
``{"image": "images/train/s001_000042.jpg", "boxes": [{"class": "7S", "cx": 0.5, "cy": 0.5,
"w": 0.1, "h": 0.2}]}`` (JSON, normalised boxes) replaces that frame's labels.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("dir", type=Path, help="dataset folder written by cardref collect")
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (default 8765; 0: any free)")
    p.add_argument("--html", type=Path, metavar="OUT.html", help="write a static page instead of serving")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    return p


def run(args: argparse.Namespace) -> int:
    from vision.collect.review import ReviewServer, load_items, write_static

    if args.html:
        out = write_static(args.dir, args.html)
        print(f"{len(load_items(args.dir))} frames: {out}")
        return 0
    server = ReviewServer(args.dir, args.port)
    items = load_items(args.dir)
    print(
        f"{len(items)} frames ({sum(i.flagged for i in items)} flagged); review at {server.url} "
        "(Ctrl-C to stop)",
        flush=True,
    )
    if args.open:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.server_close()
    return 0
