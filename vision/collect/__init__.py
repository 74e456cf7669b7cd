"""Dataset collection from the camera: pre-labelled frames, guided layouts, review, for retraining.

``cardref collect`` writes an Ultralytics dataset (see :mod:`vision.collect.store`), ``cardref
review`` serves it for a person to check, and ``cardref train --data synthetic --data DIR``
fine-tunes the shipped detector on it (:mod:`vision.detector.retrain`).
"""
