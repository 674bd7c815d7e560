"""The memory lab: generated personas with histories and implicit queries, the LambdaMART ranker's
training, and the retrieval and referral evaluation behind ``manage.py eval_memory``."""
