"""The game-night screen: ``cardref live GAME --serve [HOST:]PORT`` serves a page that a TV or
a phone on the same network opens to follow the game (``vision.screen.server``), fed by the
live loop through :class:`vision.screen.feed.ScreenFeed`."""
