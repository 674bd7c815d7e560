"""Messages sent on the patient's behalf: the outbox and its delivery transports."""
