"""What every layer shares: the realtime push to a user's open pages and the list of its events.

The bottom layer: ``core`` imports nothing of ``health``, ``agents`` or ``frontend``."""
