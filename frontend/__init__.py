"""Browser UI: pages, static assets and the websocket consumers that feed them."""
