"""A patient's rights over their data: everything tied to an account (``records``), handed over
as one download (``export``), or erased with the account (``erase``)."""
