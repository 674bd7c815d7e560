"""The vitals monitor: new readings in, soft SOS alerts out.

- ``check``: judges new readings against the rules (``check_readings``);
- ``rules``: the conditions, their levels, persistence and clinical sources;
- ``baselines``: per-user levels learned from the user's own history;
- ``state``: where each condition's episode stands, read from the alerts;
- raising and clearing a soft SOS, and its notification, live in ``health.sos.soft``;
- ``schedule``: beat entries (imported by settings, so this package imports
  nothing at load time).
"""
