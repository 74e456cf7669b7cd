"""The card detector: training (Ultralytics), inference backends, evaluation."""
