"""The web channel: each game's read-only watch page (`routes`: ``/w/<token>``), drawn from the game's public
history (`service.pipeline.watch`) by `page`. It reads; it never takes an answer."""
