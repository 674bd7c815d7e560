"""The Scheduler: prescription photo -> text -> medications -> reminders that fire -> doses and adherence.

- ``images``: an uploaded file (JPEG, PNG, HEIC/HEIF, one-page PDF) checked by content and limits and
  opened as an upright RGB image; a bad file is refused with the reason the patient reads;
- ``ocr``: EasyOCR, one ``Reader`` per process built once from the offline English models, with the
  preprocessing a phone photo needs; image -> text;
- ``reading``: image -> text -> medications, the one path the app's Celery task and the
  ``read_prescription`` command share (no database);
- ``extract``: ``extract_medications(text)`` turns prescription text (typed, or read by OCR) into
  medications (name, strength, dose, times per day, clock times, duration, relation to food), with a
  spaCy blank English pipeline and rule patterns; a pure function, no database;
- ``lexicon``: the medication lexicon (``lexicon.json``: generic names, brands, misspellings);
- ``times``: the default clock times for a number of doses a day, shared by ``extract``, ``schedule``
  and the chat's reminder tool;
- ``schedule``: ``schedule_medication``, the one path by which a confirmed medication (from a
  prescription or from chat) becomes reminder times in the patient's time zone;
- ``dispatch``: fires each dose when due (``beat`` runs it every minute), re-sends snoozed doses,
  re-alerts once, marks missed and tells opted-in carers, catches up after downtime;
- ``adherence``: taken / due per medication and per day, from the dose records.
"""
