"""The channels: Telegram, SMS and the console, each with its inbound handling, its words for the news and its
sender (`service.pipeline.outbox.Sender`). They never import each other; `plain` is the plain-lines rendering
they share."""
