"""The Scheduler: from prescription text to a medication schedule.

- ``extract``: ``extract_medications(text)`` turns prescription text (typed, or read by OCR) into
  medications (name, strength, dose, times per day, clock times, duration, relation to food), with a
  spaCy blank English pipeline and rule patterns; a pure function, no database;
- ``lexicon``: the medication lexicon (``lexicon.json``: generic names, brands, misspellings).
"""
