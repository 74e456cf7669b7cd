"""``cardref mat GAME --out mat.pdf``: print the play mat (zones, labels, ArUco markers).

Print it at 100 % scale: calibration finds the markers and knows where they are on the table.
``--paper a4`` (or ``letter``) cuts the mat into the fewest pages of that paper, each with
overlap, cut lines, alignment crosses, its place in the assembly and a 10 cm bar to check the
print scale. ``--one-page`` scales the whole mat onto one page instead, for players who draw
the zones on their table themselves.
"""

from __future__ import annotations

import argparse


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("game", help="game whose layout to print (configs/layouts/GAME.yaml) or a layout file")
    p.add_argument("--out", default="mat.pdf", help="output .pdf or .png (default mat.pdf)")
    p.add_argument("--dpi", type=int, default=150, help="resolution (default 150)")
    p.add_argument("--paper", choices=("a4", "letter"), help="cut the PDF into pages of this size")
    p.add_argument(
        "--one-page",
        action="store_true",
        help="the whole mat scaled onto one page (of --paper, default a4), with its scale",
    )
    return p


def run(args: argparse.Namespace) -> int:
    from referee.errors import CardrefError
    from vision.layout import load_layout
    from vision.mat import write_mat

    if not 30 <= args.dpi <= 600:
        raise CardrefError(f"--dpi: expected 30..600, got {args.dpi}")
    layout = load_layout(args.game)
    plan = write_mat(layout, args.out, args.dpi, args.paper, one_page=args.one_page)
    w, h = layout.table_size
    print(f"{args.out}: {layout.name} play mat, {w:g} x {h:g} cm, {len(layout.markers)} markers")
    if plan is None:
        print("Print at 100 % (not 'fit to page') on a sheet this size.")
    else:
        print("\n".join(plan.describe()))
    return 0
