"""Camera side of cardref: sources, detector, calibration, table state, event inference."""
