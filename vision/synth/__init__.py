"""Synthetic card-table renderer: training images and simulated game videos with exact labels.

``art`` prepares the cached card faces and table photos (set-up time, needs apt); everything
else renders from that cache with numpy, OpenCV and Pillow only.
"""
