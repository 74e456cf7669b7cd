import sys
from pathlib import Path

# Test helper modules (tests/referee/rf_helpers.py) import as top-level modules.
sys.path.insert(0, str(Path(__file__).parent / "referee"))
