"""A prescription corpus the project generates itself, and the evaluation of prescription reading on it.

* :mod:`agentlab.prescriptions.corpus`: seeded prescriptions (what the doctor meant, as ground
  truth in the reader's medication schema) written out in several layouts and phrasings.
* :mod:`agentlab.prescriptions.render`: those prescriptions as images: printed, phone-photo-like
  and handwriting-like.
* :mod:`agentlab.prescriptions.evaluate`: OCR character error rate, field-level precision, recall
  and F1, and seconds per image (``manage.py eval_prescriptions``).
"""
