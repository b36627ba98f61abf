"""Channel adapters: inbound text -> (player, command); outbound messages -> a channel (see service.outbox.Sender)."""
