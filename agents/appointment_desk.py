"""The appointments desk: "what's my next appointment?", "cancel the urologist", "move it to Friday".

A patient's questions about the appointments they already have are answered from the records,
before the model runs, like the other chat guards (agents/runtime.py): the first planner step of a
small model read them as a new complaint and offered a cardiologist. The desk reads the request
(:func:`read`), finds the appointment it is about among the patient's upcoming ones (by the
specialization or specialist named, the day, "next"), and uses the tools of
agents.tools.my_appointments, whose steps are written into the trajectory like any other:

- list: ``get_upcoming_appointments``; its message (rendered from the records) is the answer;
- cancel: ``cancel_appointment``, which asks "Cancel your appointment with …? yes/no" and cancels
  only on a clear yes;
- reschedule: the free slot of the same specialist that fits the new time the user said (a day, a
  part of the day, "earlier", "later", "a week later"; none said: the earliest), then
  ``reschedule_appointment``, which asks before moving it;
- more than one appointment could be meant: ``get_input_from_user`` asks which (the answer is read
  by the desk, not the model); none matches: the user is told so, with their upcoming appointments.

A further request in the same message ("cancel Tuesday and book me a skin doctor instead") goes to
the model once the desk's part is done. Hand-written rules on purpose, like agents.scope: a desk
that took a booking request would block a patient from being seen, so each pattern needs words
about an appointment the patient *has* ("my appointment", "tomorrow's", "cancel the urologist"),
and a message that only asks for a new appointment goes to the model as before.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents import desk_steps
from agents.desk_reading import prepared, typos_read
from agents.field_names import clipped_spans
from agents.tools.appointments import SEARCH_HORIZON, SEARCH_LEAD, specialist_label
from agents.tools.my_appointments import listing, upcoming
from agents.tools.preferences import Preference, clock_time, describe, preference_from
from agents.tools.transcript import QUESTION_TOOLS, request_parts
from health.models import Appointment, Slot, Specialization

if TYPE_CHECKING:
    from agents.runtime import Runtime

log = logging.getLogger(__name__)

LIST, CANCEL, RESCHEDULE = "list", "cancel", "reschedule"
DESK = "Appointments desk:"  # how the desk's planner steps begin (the chat page shows its words as written)
CONSENT_TOOLS = ("cancel_appointment", "reschedule_appointment")
# How many other free times a reply offers when none fits what the user asked for.
NEARBY = 3

# Typo-tolerant on purpose ("apointment", "appoinment", "appt"): patients type on phones.
_APPOINTMENT = r"(?:a+p+o+i*n+t*m+e*n*t+s?|appts?|bookings?|consultations?|check[- ]?ups?|visits?|slot)"
_DAYS = r"(?:today|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_CANCEL = re.compile(
    r"\b(?:can+[cs]e?l+e?(?:l?ed|l?ing|s)?|call(?:ing)? off|scrap|drop|delete|get rid of|un-?book\w*)\b"
    r"|\btake\s+(?:me|us|him|her|them)\s+off\b"
    # "take my cardiology booking off please"
    rf"|\btake\s+(?:my|the|that|this)\s+(?:[\w']+\s+){{0,3}}?{_APPOINTMENT}\s+off\b"
    # "please don't keep the slot for me on monday"
    rf"|\b(?:don'?t|do not|no need to)\s+(?:keep|hold|save)\s+(?:my|the|that|this)\s+(?:\w+\s+)?{_APPOINTMENT}\b"
    # "remove" only with the appointment: patients also remove reminders and medicines
    rf"|\bremove\s+(?:my|the|that|this)\s+(?:[\w']+\s+){{0,3}}?{_APPOINTMENT}\b"
    # "I no longer need to see the dermatologist", "I won't be needing that GP appointment"
    r"|\b(?:don'?t|do not|no longer|won'?t|will not|wont)\s+(?:\w+\s+)?(?:be\s+)?need(?:ing)?\s+"
    r"(?:to\s+(?:see|go to|visit)\s+)?(?:my|the|that|this|it)\b",
    re.I,
)
_CANNOT_COME = re.compile(
    r"\b(?:can'?t|cannot|can not|won'?t|will not|wont|unable to|not able to|won'?t be able to|couldn'?t)\s+"
    # "a crick in my neck that won't go away", "I can't go on like this": no appointment missed
    r"(?:be able to\s+)?(?:make it|make my|make the|keep my|keep the|keep it|come|attend|"
    r"go(?!\s+(?:away|down|off)\b|\s+on\s+(?:like|living|anymore|any\s+more)\b)|be there|get there)\b"
    # "I won't be coming to the cardiology appointment" (not "to work")
    r"|\b(?:won'?t|will not|wont|not)\s+be\s+(?:coming|going|attending)\s+(?:to\s+|in\s+for\s+)?"
    r"(?:my|the|his|her|tomorrow'?s|[a-z]+'s)\s+(?:\w+\s+){0,2}?"
    rf"(?:{_APPOINTMENT}|\w+(?:ist|ian)|doctor|gp)\b"
    r"|\bclash(?:es|ing)?\s+with\b"
    # "I've decided not to go to the cardiologist", "I'm not coming on monday"
    r"|\b(?:decided|chosen|choose|prefer)\s+not\s+to\s+(?:go|come|attend|see|keep)\b"
    r"|\b(?:i'm|i am|we're|we are)\s+not\s+(?:coming|going)(?!\s+(?:to\s+)?(?:work|school|home|out)\b)\b",
    re.I,
)
# "Don't cancel it", and "my appointment got cancelled" (what happened, not a request).
_MAKE_IT = re.compile(r"\bmake it\b", re.I)
_NEGATED_CANCEL = re.compile(
    r"\b(?:don'?t|do not|not|never|no need to|got|was|were|been|is|are)\s+(?:\w+\s+)?can+[cs]e?l", re.I
)
_MOVE_VERB = (
    # "prepone": Indian English for bringing an appointment forward
    r"(?:re-?schedul\w*|re-?book\w*|re-?ar+ang\w*|move[ds]?|moving|chang(?:e|ed|ing)|postpon\w*|prepon\w*|push(?:ed)?|bring|swap|"
    # "put me in with the cardiologist" asks for a booking; "put my appointment back" moves one
    r"shift|switch|delay|put(?!\s+(?:me|us|him|her|mum|mom|dad|my\s+\w+)\s+(?:in|down)\b))"
)
# The verb must act on the appointment ("move it", "change my appointment", "push the dentist back"):
# "my symptoms changed since my last appointment" is a complaint, not a request to move it.
# An appointment named by its time: "my 9am", "the 3 o'clock", "my 10:30 one".
_AT_TIME = r"(?:the|my)\s+\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock)"
# A specialist by the ending of the word ("the dentist", "my physician", "the doctor", "the podiatrist",
# "my practitioner"), not a body part or an everyday word of that ending ("my finger", "the lower side").
_NOT_A_SPECIALIST = (
    r"(?!(?:finger|shoulder|bladder|liver|lower|upper|other|fever|water|ulcer|cancer|daughter|sister|brother|"
    r"mother|father|partner|number|weather|dinner|supper|temper|better|border|letter|paper|order|matter|"
    r"colour|color|humour|tumour|tumor|odour|odor|error|floor|door|flavour|labour)s?\b)"
)
_THE_APPOINTMENT = (
    rf"(?:{_APPOINTMENT}|it|that|this|one|(?:the|my)\s+{_NOT_A_SPECIALIST}\w+(?:ist|ian|or|er)s?|{_DAYS}'?s|{_AT_TIME})"
)
# Words between the verb and its object: not a preposition ("changed since my last appointment", "put my
# finger on it", "the pain moved to the lower right side").
_BETWEEN = (
    r"(?!(?:since|after|before|from|during|because|when|as|at|than|of|for|on|in|into|onto|about|around|"
    r"through)\b)\w+"
)
_MOVE = re.compile(
    rf"\b{_MOVE_VERB}\s+(?:{_BETWEEN}\s+){{0,6}}?{_THE_APPOINTMENT}\b"
    rf"|(?:\b{_APPOINTMENT}|{_AT_TIME})\s+(?:\w+\s+){{0,4}}?(?:be\s+)?(?:moved|changed|rescheduled|postponed|pushed|brought)\b"
    # "my mum's appointment with the neurologist needs to move", "can my appointment be later"
    rf"|\b{_APPOINTMENT}\s+(?:\w+\s+){{0,4}}?(?:needs?|has|have)\s+(?:to\s+(?:be\s+)?)?"
    r"(?:move[ds]?|moving|chang(?:e|ed|ing)|re-?schedul\w*|postpon\w*)\b"
    rf"|\b{_APPOINTMENT}\s+(?:\w+\s+){{0,2}}?be\s+(?:a\s+(?:bit|little)\s+)?(?:later|earlier|sooner)\b"
    # "can my neurologist appointment be on thursday instead", "could the appointment be at 3 instead"
    rf"|\b(?:can|could)\s+(?:my|the|our)\s+(?:[\w'-]+\s+){{0,3}}?{_APPOINTMENT}\s+be\s+(?:on|at|in|for)\s+"
    r"(?:\w+\s+){0,3}?instead\b"
    # a verb that is only ever said of an appointment: "reschedule pls", "I need to rebook"
    r"|\b(?:re-?schedul\w*|re-?book\w*|postpon\w*)\b"
    r"|(?<!every )\b(?:another|a different|other|new)\s+(?:time|day|date|slot)\b"
    # "it clashes with work, can we change the day", "switch to another time"
    r"|\b(?:change|switch|swap)\s+(?:the|to\s+(?:another|a\s+different))\s+(?:time|day|date)\b(?!\s+(?:of|for)\s+"
    r"(?:the|my)\s+(?:reminder|medicine|medication|dose|pill|tablet)s?\b)"
    # "change the time of my appointment", "make my appointment a bit later"
    rf"|\bchang\w*\s+the\s+(?:time|day|date)\s+(?:of|for)\s+(?:{_BETWEEN}\s+){{0,3}}?{_THE_APPOINTMENT}\b"
    rf"|\bmake\s+(?:it|that|(?:my|the)\s+(?:\w+\s+){{0,2}}?{_APPOINTMENT})\s+(?:a\s+(?:bit|little)\s+|an\s+hour\s+)?"
    r"(?:later|earlier|sooner)\b",
    re.I,
)
_NEW_TIME_LATER = re.compile(r"\b(?:instead|rather|how about|what about|can we do|could we do|would)\b", re.I)
# Words of something else the patient may cancel or change: not an appointment.
_OTHER_THING = re.compile(
    r"\b(?:sos|alarm|alert|ambulance|reminders?|medications?|medicines?|meds|pills?|doses?|tablets?|"
    r"messages?|texts?|sms|prescriptions?|scripts?|subscription|order|password|account)\b",
    re.I,
)
_HAS = re.compile(
    rf"\bmy\s+(?:\w+\s+){{0,5}}?{_APPOINTMENT}\b|\b{_APPOINTMENT}\s+(?:\w+\s+){{0,3}}?(?:i have|i've got|i got|"
    rf"do i have|have i got|i booked|you booked|is booked|are booked|coming up|booked for me)\b"
    rf"|\b(?:do|did)\s+i\s+(?:still\s+)?have\s+(?:an?y?|some|one|an|the|my)?\s*(?:\w+\s+){{0,2}}?{_APPOINTMENT}\b"
    rf"|\b(?:have|has)\s+(?:i|he|she|we)\s+got\s+(?:an?y?|some|one|an)?\s*(?:[\w']+\s+){{0,2}}?{_APPOINTMENT}\b"
    rf"|\b(?:do|did|have)\s+i\s+(?:have|got)\s+(?:anything|something|any\w*)\s+(?:booked|scheduled|coming up)\b"
    rf"|\b{_DAYS}'?s\s+(?:\w+\s+)?{_APPOINTMENT}\b|\bam i booked(?: in)?\b"
    # "is there anything in the diary with a specialist"
    r"|\b(?:anything|something)\s+(?:in|on)\s+(?:the|my)\s+(?:diary|calendar)\b"
    rf"|\bwhat(?:'s|s| is| have i got| do i have)\s+booked\b"
    rf"|\b(?:what|which|any)\s+{_APPOINTMENT}\s+(?:have|has|do|does|did)\s+(?:i|he|she|we|they|[a-z]+)\s+"
    r"(?:got|have|booked)\b"
    rf"|\b(?:the|my|next|upcoming)\s+{_APPOINTMENT}\b|\b{_AT_TIME}\b"
    rf"|\bthe\s+(?:\w+(?:ist|ian|ogy|ics|iatry)|gp|ent|(?:\w+\s+)?doctor'?s?)\s+{_APPOINTMENT}\b"
    # "when's mum's next hospital visit", "dad's upcoming appointments"
    rf"|\b[a-z]+'s\s+(?:next|upcoming|coming)\s+(?:\w+\s+)?{_APPOINTMENT}\b"
    # "I've got an appointment soon haven't I"
    rf"|\bi(?:'ve| have)?\s+got\s+an?\s+(?:\w+\s+)?{_APPOINTMENT}\s+(?:soon|coming up|this|next|tomorrow|today|on)\b"
    # "when is the eye test", "what time is my scan": a test or a procedure the patient is booked for
    r"|\b(?:when|what time|what day|which day)(?:'s|s| is| was)\s+(?:the|my)\s+(?:\w+\s+)?"
    r"(?:test|scan|x-?ray|mri|operation|procedure)\b"
    # "check if I'm booked in with the GP"
    r"|\b(?:if|whether)\s+(?:i'm|i am|we're|we are|he's|she's)\s+booked\b"
    # "show me what I have booked", "remind me what time the cardiology appointment is"
    r"|\bwhat\s+(?:i|we)\s+(?:have|'ve|got|have got)\s+booked\b|\bwhat(?:'s| has)\s+been\s+booked\b"
    rf"|\b(?:what time|what day|which day|when)\s+(?:the|my)\s+(?:\w+\s+){{0,2}}?{_APPOINTMENT}\s+is\b"
    # "did you book me in with the urologist", "can you check if I have an appointment", "mum's appointment"
    r"|\b(?:did|have|has)\s+(?:you|they|someone|anyone)\s+(?:book|booked)\s+(?:me|us|him|her)\b"
    # "what day did you book the eye doctor for", "when did I book the cardiologist"
    r"|\b(?:when|what time|what day|which day|where)\s+(?:did|have|has)\s+(?:you|they|i|we)\s+(?:book|booked)\s+"
    r"(?:me\s+|us\s+)?(?:in\s+)?(?:with\s+|for\s+)?(?:the|my)\b"
    # "did I book something for Friday?", "have I booked anything": what was booked, not a new booking
    r"|\b(?:did\s+i\s+book|have\s+i\s+booked|had\s+i\s+booked)\s+(?:something|anything)\b"
    rf"|\b(?:if|whether)\s+(?:i|we)\s+(?:have|'ve got|got|have got)\s+(?:an?y?|some)?\s*"
    rf"(?:[\w']+\s+){{0,2}}?{_APPOINTMENT}\b"
    rf"|\b(?:his|her|their|[a-z]+'s)\s+(?:\w+\s+)?{_APPOINTMENT}\b"
    r"|\bam\s+i\s+(?:seeing|meeting)\s+(?:anyone|anybody|someone|any\s+doctors?|a\s+doctor)\b"
    # "is she seeing the dermatologist tomorrow", "is my dad still seeing dr chen on friday"
    r"|^\W*(?:is|are)\s+(?:he|she|they|my\s+\w+|mum|mom|dad)\s+(?:still\s+)?(?:seeing|meeting)\s+(?:the|dr\.?|doctor)\b"
    r"|\bwhat(?:'s| is| have i got| do i have)\s+coming up\b"
    # "tell me my schedule with the doctors", "I can't remember if I booked the dermatologist",
    # "when do I go back to the gp"
    r"|\bmy\s+(?:schedule|calendar|diary|plans?)\s+(?:with|at|for)\s+(?:the\s+)?(?:doctors?|docs?|clinic|hospital|gp|"
    r"specialists?)\b"
    r"|\b(?:if|whether)\s+(?:i|we|you|they)\s+(?:have\s+|'ve\s+)?(?:booked|book)\s+(?:me\s+)?(?:in\s+)?(?:with\s+)?"
    r"(?:the|a|an|my)\b"
    r"|\bwhen\s+(?:do|am|should|must)\s+i\s+(?:go|going|come|coming)\s+back\s+(?:to|in)\b"
    # "everything I have coming up with doctors", "what have I got on with the doctors this week",
    # "I think I have something with a doctor next week"
    r"|\b(?:everything|anything|what)\s+(?:i|we)(?:\s+have|'ve got|'ve|\s+got|\s+have got)\s+coming up\b"
    r"|\bwhat\s+(?:have\s+i|do\s+i\s+have|i've)\s+(?:got\s+)?on\s+(?:with|at)\s+(?:the\s+)?"
    r"(?:doctors?|docs?|clinic|hospital|gp|surgery)\b"
    r"|\bi\s+(?:have|'ve got|got)\s+(?:something|an?\s+\w+)\s+(?:on\s+)?(?:with|at)\s+(?:a|the|my)\s+"
    r"(?:doctor|doc|clinic|hospital|gp|dr)\b"
    # "is anything booked for my dad", "what's in my calendar"
    r"|\b(?:is|are)\s+(?:there\s+)?(?:anything|something|any\s+\w+)\s+(?:booked|scheduled|arranged|planned|set up)\b"
    r"|\b(?:in|on)\s+my\s+(?:calendar|diary)\b"
    # "what's on my schedule medically", "my medical calendar"
    r"|\bmy\s+(?:schedule|calendar|diary)\s+(?:medically|health[- ]wise|"
    r"for (?:my )?(?:health|doctors?|appointments?))\b"
    r"|\bmy\s+(?:medical|health|doctors?'?|hospital|clinic)\s+(?:schedule|calendar|diary)\b"
    # "what's on for me next week doctor wise" (not "health-wise": that asks how the patient is)
    r"|\b(?:doctors?|docs?|appointments?|appts?|clinic)[- ]?wise\b"
    # "do I have anything on monday with the doctor", "where do I need to go tomorrow", "who am I seeing next"
    rf"|\b(?:do|have)\s+i\s+(?:got\s+|have\s+)?(?:something|anything)\s+(?:on\s+{_DAYS}|with\s+(?:the|a|my|dr))\b"
    r"|\bwhere\s+(?:do|should|must)\s+i\s+(?:need to\s+|have to\s+)?(?:go|be)\b(?!\s+(?:for|to get))"
    r"|\b(?:who|(?:which|what)\s+(?:doctors?|specialists?))\s+(?:am i|do i)\s+(?:next\s+)?(?:seeing|see|meeting)\b"
    r"|\b(?:do|have)\s+i\s+(?:have|got|need)\s+to\s+go\s+to\s+(?:the\s+)?(?:hospital|clinic|doctor'?s|surgery)\b"
    r"|\b(?:have i got|do i have|am i seeing)\s+(?:the|my)\s+\w+(?:ist|ian|doctor)\b"
    r"|\b(?:what time|when)\s+(?:do|should|must)\s+i\s+(?:have to |need to )?(?:be|arrive|get)\s+(?:at|to)\s+"
    r"(?:the\s+)?(?:[\w-]+\s+)?(?:clinic|hospital|surgery|practice|doctor'?s)\b"
    # "did I book a gp for monday", "have you booked me with the ENT yet", "did the psychiatrist appointment go through"
    r"|\b(?:did|have|has)\s+(?:i|we|you|they)\s+(?:already\s+)?(?:book|booked|make|made|schedule|scheduled|arrange|arranged)\b"
    r"|\b(?:if|whether)\s+i\s+(?:have|'ve got|got|have got)\s+(?:something|anything)\s+(?:on|with|at)\s+"
    rf"|\bhow\s+(?:far\s+(?:away|off)|soon)\s+is\s+(?:my|the)\s+(?:[\w-]+\s+){{0,2}}?{_APPOINTMENT}\b"
    r"|\bin\s+my\s+(?:schedule|agenda)\b"
    r"|\bwhen\s+(?:will|do|am|shall)\s+i\s+(?:be\s+)?(?:next\s+)?(?:see|seeing|meet|meeting)\s+(?:the|my|dr)\b",
    re.I,
)
# "my appointments", "upcoming appointments please": the list asked for without a question.
_BARE_LIST = re.compile(
    rf"^\W*(?:(?:show\s+|list\s+)?(?:all\s+)?(?:my|upcoming|next)\s+(?:upcoming\s+)?(?:doctors?'?\s+|hospital\s+|clinic\s+)?"
    rf"{_APPOINTMENT})\W*(?:please|pls|thanks)?\W*$"
    rf"|^\W*(?:show|list)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?:upcoming\s+)?{_APPOINTMENT}\W*(?:please|pls|thanks)?\W*$"
    # "any appointments tomorrow?" (a day, not a kind of specialist: "any dermatologist appointments free" books)
    rf"|^\W*any\s+{_APPOINTMENT}\s*(?:(?:on\s+|this\s+|next\s+)?(?:{_DAYS}|week|today|tomorrow))?\W*$"
    # "my schedule with the doctors please"
    r"|^\W*(?:(?:show|tell)\s+(?:me\s+)?)?my\s+(?:schedule|calendar|diary|plans?)\s+(?:with|at|for)\s+(?:the\s+)?"
    r"(?:doctors?|docs?|clinic|hospital|gp|specialists?)\W*(?:please|pls|thanks)?\W*$"
    # "appointments?", "bookings please" (the plural: "appointment" alone may ask for a new one)
    r"|^\W*(?:appointments|appts|bookings)\W*(?:please|pls)?\W*$",
    re.I,
)
# "when's the heart doctor": when, and a specialist the patient sees
_WHEN_THE = re.compile(
    r"(?:(?:\bwhen(?:'s|s| is| was)|\b(?:what time|what day|what date|which day|where)(?:'s|s| is| was)"
    r"|\b(?:remind me|tell me|let me know|do you know|i forgot|i forget)\s+when)\s+(?:the|my)\b"
    r"|\b(?:is|are)\s+(?:the|my)\s+(?:\w+\s+){1,3}?(?:still on|still happening|still going ahead|going ahead|"
    r"confirmed|still booked)\b"
    r"|\b(?:did|has|have)\s+(?:the|my)\s+(?:\w+\s+){1,3}?(?:go|gone|went)\s+through\b)"
    # "when is the earliest dermatologist", "where is the nearest cardiologist": a new booking
    r"(?![^.?!]*\b(?:earliest|soonest|available|free|nearest|closest|best|good)\b)",
    re.I,
)
# "my dermatologist appointment details please": the record asked for without a question
# ("I've lost the letter with my appointment on it", "I can't remember when my appointment is")
_DETAILS = re.compile(
    r"\b(?:details|info|information|confirmation|letter|lost|forgot|forgotten|misplaced|can'?t remember|"
    r"cannot remember|don'?t remember)\b",
    re.I,
)
# "is there a later slot for my appointment", "I need a later time for my appointment"
_OTHER_SLOT = re.compile(
    r"\b(?:an?|any|what|which)\s+(?:later|earlier|sooner|different|other|new)\s+(?:slots?|times?|days?|dates?)\b"
    # "a day later", "an hour earlier", "two days later"
    r"|\b(?:a|an|one|two|three|\d)\s+(?:day|days|hour|hours|week|weeks)\s+(?:later|earlier|sooner)\b",
    re.I,
)
# An appointment the patient has, said without the word: "when am I next seeing the doctor", "can I
# come at 2pm instead", "9am is too early, can I come later".
_SEEING = re.compile(
    r"\b(?:when|what time|what day|which day|where)\s+(?:(?:am|do)\s+i|(?:is|does)\s+(?:my\s+)?[a-z]+|are\s+we)\s+"
    r"(?:next\s+)?(?:seeing|see|meeting|visiting|"
    r"going to see|due to see|supposed to see|have to see|need to see|(?:need to |have to |)go to)\b"
    r"|\bwhen\s+i'?m\s+(?:next\s+)?(?:seeing|meeting)\b"
    # "have I got to see the heart doctor soon", "do I need to go anywhere this week for the doctor"
    r"|\b(?:have i got|do i have|do i need|am i supposed|am i due)\s+to\s+(?:see|go to|visit)\s+(?:the|my)\b"
    r"|\b(?:do|have)\s+i\s+(?:got\s+)?(?:need|have|got)\s+to\s+go\s+(?:anywhere|somewhere)\b"
    # "is it today I'm seeing the dermatologist"
    rf"|\bis\s+it\s+(?:{_DAYS}|this week|next week)\s+(?:that\s+)?(?:i'?m|i am|we'?re|he'?s|she'?s)\s+"
    r"(?:seeing|meeting|going to see)\b"
    # "when am I due at the hospital", "when is dad expected back at the clinic"
    r"|\bwhen\s+(?:am|are|is)\s+(?:i|we|he|she|mum|mom|dad|my\s+\w+)\s+(?:next\s+)?(?:due|expected)\s+"
    r"(?:back\s+)?(?:at|in)\s+(?:the\s+)?(?:hospital|clinic|surgery|practice|doctor'?s|gp)\b"
    # "the name of the doctor I'm seeing tomorrow"
    r"|\b(?:doctor|specialist|consultant|gp|\w+(?:ologist|iatrist|ician))\s+(?:i'm|i am|we're|he's|she's)\s+"
    r"(?:seeing|going to see|due to see|booked (?:in )?with)\b"
    # "which doctor am I seeing on tuesday", "what specialist do I see next"
    r"|\b(?:which|what)\s+(?:doctor|specialist|consultant|clinic|hospital)\s+(?:am|do)\s+i\s+(?:next\s+)?"
    r"(?:seeing|see|meeting|going to|visiting)\b",
    re.I,
)
_COME_OTHER_TIME = re.compile(
    r"\b(?:can|could|may)\s+i\s+(?:come|come in|be seen)\s+(?:\w+\s+){0,3}?(?:later|earlier|another|a different)\b"
    r"|\b(?:anything|something|any time|a time)\s+(?:\w+\s+)?(?:earlier|later|sooner)\b(?:[^.?!]|\.\d)*"
    r"\b(?:my|instead)\b"
    r"|\b(?:can|could|may)\s+i\s+(?:come|come in|be seen|see\s+(?:the|my)\s+\w+)\b(?:[^.?!]|\.\d)*\binstead\b"
    r"|\b(?:can|could)\s+(?:the|my)\s+\w+\s+see\s+(?:me|us|him|her)\s+(?:\w+\s+){0,2}?(?:earlier|later|sooner)\b"
    # "the appointment time doesn't suit me anymore": the time kept, not the appointment dropped
    rf"|\b{_APPOINTMENT}(?:'?s)?(?:\s+(?:time|day|date))?\s+(?:\w+\s+){{0,1}}?(?:doesn'?t|does not|no longer)\s+"
    r"(?:work|suits?)\b"
    r"(?:\s+(?:for\s+)?(?:me|us))?(?:\s+any\s*more)?\W*$"
    # ("not too early in the morning" is a wish for a new booking, not a time refused)
    r"|(?<!not )\btoo\s+(?:early|late|soon)\b[^.?!]*\b(?:later|earlier|another|instead|afternoon|morning|evening)\b"
    # "could we do thursday instead", "make it friday instead", "I'd prefer a morning one instead"
    rf"|\b(?:could|can)\s+(?:we|i|you)\s+(?:do|make it|have it|go for)\s+(?:\w+\s+){{0,2}}?"
    rf"(?:{_DAYS}|morning|afternoon|evening|later|earlier)\b[^.?!]*\binstead\b"
    rf"|^\W*(?:make it|let'?s do|how about|what about)\s+(?:\w+\s+){{0,2}}?(?:{_DAYS}|morning|afternoon|evening)\b"
    r"[^.?!]*\binstead\b"
    r"|\bprefer\b[^.?!]*\binstead\b"
    # "could we do the eye appointment earlier in the day", "can you put my 9am a bit later"
    rf"|\b(?:can|could)\s+(?:we|i|you)\s+(?:do|have|make|move|put|get)\s+(?:(?:the|my)\s+(?:\w+\s+){{0,2}}?"
    rf"(?:{_APPOINTMENT}|one)|{_AT_TIME}|it)\s+(?:a\s+(?:bit|little)\s+|an\s+hour\s+)?(?:earlier|later|sooner)\b"
    # "I'd rather go next monday than this friday", "sooner than thursday if possible"
    rf"|\b(?:rather|prefer\w*|sooner|better)\b[^.?!]*\b{_DAYS}\b[^.?!]*\bthan\b[^.?!]*\b{_DAYS}\b"
    # "could I see the dermatologist on monday rather than friday", "next week instead of this week"
    rf"|\b(?:{_DAYS}|morning|afternoon|evening|(?:next|this|the following) week|the weekend)\s+"
    rf"(?:rather than|instead of)\s+(?:the\s+|this\s+|next\s+)?(?:{_DAYS}|morning|afternoon|evening|week|weekend)\b"
    # "a bit later than planned", "earlier than it's booked"
    r"|\b(?:later|earlier|sooner)\s+than\s+(?:planned|booked|scheduled|arranged|it is|it's|originally)\b"
    # "please give me an afternoon time for my appointment"
    r"|\b(?:give|find|get)\s+(?:me|us|him|her)\s+(?:an?\s+)?(?:morning|afternoon|evening|later|earlier|different|"
    rf"another|new|weekend)\s+(?:time|slot|day|date|one)\s+for\s+(?:my|the|his|her)\s+(?:\w+\s+)?{_APPOINTMENT}\b"
    # "the appointment you booked is too early"
    rf"|\b{_APPOINTMENT}\b[^.?!]*\b(?:is|was|'s)\s+(?:way\s+|much\s+|a\s+bit\s+|a\s+little\s+)?too\s+"
    r"(?:early|late|soon)\b"
    # "can we do the cardiology one a week later"
    r"|\b(?:the|my)\s+\w+\s+one\b[^.?!]*\b(?:later|earlier|sooner|another day|a different day|next week)\b"
    # "is there a slot earlier than my current cardiology one"
    rf"|\b(?:slots?|times?|anything|something|days?|dates?)\s+(?:earlier|later|sooner)\s+than\s+(?:my|the)\s+"
    rf"(?:\w+\s+){{0,2}}?(?:{_APPOINTMENT}|one)\b"
    # "can I change to a later time on the same day", "different time for the skin doctor please"
    r"|\bchange\s+(?:it\s+)?to\s+(?:a|an)\s+(?:later|earlier|different|other)\s+(?:time|day|slot|date)\b"
    r"|^\W*(?:a\s+)?different\s+(?:time|day|date|slot)\s+for\b"
    # "wednesday is bad for me, how about friday"
    rf"|\b{_DAYS}\s+(?:is|isn't)\s+(?:bad|no good|not good|difficult|impossible|a problem|tricky|not possible)\b"
    r"[^.?!]*\b(?:how about|what about|instead|can we do|could we do|rather)\b"
    # "can the cardiologist do monday instead"
    rf"|\b(?:can|could)\s+(?:the|my)\s+\w+\s+(?:do|see me|fit me in)\s+(?:on\s+)?{_DAYS}\b[^.?!]*\binstead\b"
    rf"|\b(?:swap|switch)\s+(?:it\s+)?to\s+(?:the\s+)?(?:{_DAYS}|morning|afternoon|evening)\b"
    rf"|\b(?:an?)\s+(?:later|earlier|sooner)\s+{_APPOINTMENT}\b"
    r"|\bis\s+there\s+(?:anything|something)\s+(?:on|for)\s+[^.?!]*\binstead\b"
    # "the time you gave me doesn't work, anything later?", "9am doesn't suit me, anything earlier?"
    rf"|(?:\b(?:time|slot|day|date|{_DAYS}|{_APPOINTMENT})\b|\b\d{{1,2}}\s*(?:am|pm)\b)[^.?!]*?"
    r"\b(?:doesn'?t|does not|won'?t|will not|don'?t|do not)\s+(?:work|suit)\b[^.?!]*"
    r"\b(?:(?:anything|something|any time|a time|any slots?)\s+(?:\w+\s+)?(?:earlier|later|sooner|after|before|"
    rf"in the (?:morning|afternoon|evening)|on {_DAYS}|(?:this|next) week)"
    r"|another (?:one|time|day|slot|date)|a different (?:one|time|day|slot|date)|other (?:times|days|slots))\b"
    # "make my dermatologist appointment friday morning instead"
    rf"|\bmake\s+(?:it|(?:my|the)\s+(?:\w+\s+){{0,2}}?{_APPOINTMENT})\s+(?:\w+\s+){{0,2}}?"
    rf"(?:{_DAYS}|morning|afternoon|evening|\d{{1,2}}(?:[:.]\d\d)?\s*(?:am|pm))\b[^.?!]*\binstead\b",
    re.I,
)
_MY_DAY = re.compile(rf"\b{_DAYS}'s\b", re.I)
# Said only of an appointment the patient has: the verb is enough ("reschedule pls").
_ONLY_APPOINTMENTS = re.compile(r"\b(?:re-?schedul\w*|re-?book\w*|postpon\w*|prepon\w*)\b", re.I)
# "I can't come at 10": a time the patient was to come at is their appointment's.
_COME_AT = re.compile(r"\b(?:come|be there|get there|make it)\s+(?:in\s+)?at\s+\d", re.I)
# "move it", "cancel that one", "push it back": the pronoun is the verb's object, at most two words on.
# A pronoun elsewhere is no appointment ("the pain moved and it hurts", "it won't go away").
_PRONOUN_TARGET = re.compile(r"\s+(?:\w+\s+){0,2}?(?:it|that|this one|that one|the one|the \S+ one)\b", re.I)
_A_MOVE_VERB = re.compile(rf"\b{_MOVE_VERB}", re.I)
_ENDS_ON_A_PRONOUN = re.compile(r"\b(?:it|that|this one|that one|the one)$", re.I)  # "won't be needing that"


def _on_a_pronoun(text: str, verb: re.Pattern) -> bool:
    return any(
        _PRONOUN_TARGET.match(text, found.end()) or _ENDS_ON_A_PRONOUN.search(found.group(0))
        for found in verb.finditer(text)
    )


_QUESTION = re.compile(
    r"\?|\b(?:when|whens|when's|where|wheres|where's|who|what time|what day|which day|how many|whats|what's)\b"
    r"|^\W*(?:what|which|do|did|is|am|are|have|show|list|tell|remind|check|"
    r"can you (?:show|tell|check|list|remind|read)|could you (?:show|tell|check|list|remind|read)|any|read)\b"
    r"|\b(?:show|list|tell|read)\s+me\b|\bread\s+out\b|\bremind me (?:of|about|when)\b"
    # "how long until my appointment", "I've got one soon haven't I"
    r"|\bwhat\s+(?:have|do|did|am)\s+(?:i|we)\b"  # "appointment-wise, what have I got this month"
    r"|\bhow\s+(?:long|many days|soon|far)\b|\b(?:haven't|don't|didn't|isn't|aren't)\s+(?:i|it|we|they)\W*$"
    # "please confirm my appointment time for monday"
    r"|\bconfirm\s+(?:my|the|when|what|if|whether)\b"
    r"|\b(?:can|could|may)\s+i\s+(?:see|have|get)\s+(?:a\s+list\s+of\s+)?(?:all\s+)?(?:my|the)\b",
    re.I,
)
# Asking for a new appointment (not about one the patient has): the model books it.
_NEW_BOOKING = re.compile(
    rf"\b(?:book|make|need|want|get|schedule|arrange|set up|find)\s+(?:me\s+|us\s+|him\s+|her\s+)?"
    rf"(?:an?|another|a new|new|some)\s+(?:\w+\s+){{0,2}}?{_APPOINTMENT}"
    rf"|\b(?:book|schedule|arrange|get)\s+(?:me\s+|us\s+|him\s+|her\s+)?(?:in\s+)?(?:for\s+)?the\s+(?:\w+\s+){{0,2}}?"
    rf"{_APPOINTMENT}",
    re.I,
)
# Where a further request for a new booking starts in a message about an existing appointment.
_AND_BOOK = re.compile(
    r"(?:,|;|\band\b|\bthen\b|\balso\b|\.)\s*(?:then\s+|also\s+|please\s+|can you\s+|could you\s+)*"
    r"(?=(?:i\s+(?:also\s+)?(?:need|want|would like|'d like)\s+to\s+)?(?:book|make|get|find|schedule|arrange)\b)"
    # "tomorrow doesn't work, find me another day": the same appointment at another time, not a new one
    r"(?!\w+\s+(?:me\s+|us\s+)?(?:another|a different|a later|an earlier|a new|other)\s+"
    r"(?:day|time|slot|date|one)s?\b)",
    re.I,
)
_NEW_TIME_START = re.compile(
    rf"\b(?:to|for|until|till|into|on|at|by)\s+(?=(?:next\s+|this\s+|the\s+)?(?:{_DAYS}|morning|afternoon|evening|"
    rf"next week|a week|later|earlier|the earliest|the afternoon|the morning|the evening|\d|"
    r"(?:a|an|another|some)\s+(?:later|earlier|different|other|new)\s+(?:date|day|time|slot)))",
    re.I,
)
_TIME_THEN_INSTEAD = re.compile(
    rf"\b(?:(?:next\s+|this\s+)?{_DAYS}(?:\s+(?:morning|afternoon|evening))?|(?:the\s+)?(?:morning|afternoon|evening))"
    # "... instead", and a day said to suit: "another day, friday works", "thursday would be better"
    r"\s+(?:instead|works|would work|suits|is (?:good|fine|better|best|ok|okay)"
    r"|would be (?:good|better|great|fine|best))\b",
    re.I,
)
_EARLIER = re.compile(r"\b(?:earlier|sooner|forward|earliest|soonest|as soon as|asap|first free|prepon\w*)\b", re.I)
_WEEK_LATER = re.compile(r"\b(?:a|one|by a|by one)\s+week\b|\bnext week\b", re.I)
_LATER = re.compile(r"\b(?:later|back|postpone\w*|delay|put\s+(?:\w+\s+){0,3}?off)\b", re.I)
_PARTS = re.compile(r"\b(?:morning|afternoon|evening)\b", re.I)
_FIRST = re.compile(r"\b(?:next|first|earliest|soonest|upcoming|coming)\b", re.I)
_NUMBER = re.compile(r"^\W*(?:number\s+|no\.?\s*|#)?(\d)\W*$|\b(first|second|third|fourth|fifth)\b", re.I)
_ORDINALS = ("first", "second", "third", "fourth", "fifth")


@dataclass(frozen=True)
class DeskRequest:
    """What the desk reads in a message: the kind, the words that say which appointment, the words
    that say the new time (reschedule) and a further request for the model ("" when none)."""

    kind: str
    target: str
    when: str = ""
    rest: str = ""


# The words the desk's patterns are made of: a typo of one ("apoitnment", "teusday", "whihc", "mov")
# is read as the word, as agents.tools.said reads a typo of a symptom.
_VOCABULARY = (
    "appointment", "appointments", "cancel", "cancelled", "reschedule", "rebook", "move", "change", "postpone",
    "push", "bring", "forward", "later", "earlier", "sooner", "instead", "booked", "booking", "which", "when",
    "where", "what", "time", "clinic", "seeing", "come", "make", "next", "upcoming", "slot", "today", "tomorrow",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "morning", "afternoon",
    "evening", "can", "please", "anything", "hello", "sorry", "need", "have", "switch", "show", "see", "this",
    "remove", "swap", "something", "came", "the",
)  # fmt: skip


def read(message: str) -> DeskRequest | None:
    """The desk request in ``message``, or None: everything else goes on to the model."""
    text = prepared(message, _VOCABULARY)
    if not text:
        return None
    rest = ""
    split = _AND_BOOK.search(text)
    if split is not None and split.start() > 0:
        text, rest = text[: split.start()].strip(), text[split.end() :].strip()
    other_time = bool(_COME_OTHER_TIME.search(text))
    names = _names_specialist(text)
    about = bool(
        _HAS.search(text) or _MY_DAY.search(text) or _SEEING.search(text) or other_time
        or (names and _WHEN_THE.search(text))
    )  # fmt: skip
    other_time = other_time or bool(about and _OTHER_SLOT.search(text))
    if _OTHER_THING.search(text) and not re.search(_APPOINTMENT, text, re.I):
        return None
    cancel = bool(_CANCEL.search(text)) and not _NEGATED_CANCEL.search(text)
    cannot = bool(_CANNOT_COME.search(text))
    move = bool(_MOVE.search(text)) or other_time
    new_time = _new_time(text)
    if (move and (about or names or _on_a_pronoun(text, _A_MOVE_VERB) or _ONLY_APPOINTMENTS.search(text))) or (
        (cancel or cannot)
        and _NEW_TIME_LATER.search(new_time)
        and (about or names or _day_named(text) or _COME_AT.search(text))
    ):
        target, when = _split_when(text)
        return DeskRequest(RESCHEDULE, target, when, rest)
    if (cancel and (about or names or _on_a_pronoun(text, _CANCEL) or _day_named(text))) or (
        cannot and (about or names or (_MAKE_IT.search(text) and _day_named(text)))
    ):
        return DeskRequest(CANCEL, text, "", rest)
    asked = _QUESTION.search(text) or _DETAILS.search(text)
    if (about and asked and not _NEW_BOOKING.search(text)) or _BARE_LIST.search(text):
        from agents.tools.said import symptoms_in  # the symptom lexicon (loads spaCy once)

        # "When is my appointment? My chest hurts badly": a complaint is the model's to handle.
        if not symptoms_in(text):
            return DeskRequest(LIST, text)
    return None


def _day_named(text: str) -> bool:
    return bool(re.search(rf"\b{_DAYS}(?:'?s)?\b", text, re.I))


def _new_time(text: str) -> str:
    """The words that say a new time: "to Friday afternoon", "can we do Thursday instead", "back a week"."""
    match = _NEW_TIME_START.search(text)
    if match:
        return text[match.start() :]
    said_before = _TIME_THEN_INSTEAD.search(text)  # "make my appointment friday morning instead"
    if said_before:
        return text[said_before.start() :]
    later = _NEW_TIME_LATER.search(text)
    if later and (_day_named(text[later.start() :]) or _PARTS.search(text[later.start() :])):
        return text[later.start() :]
    shift = _WEEK_LATER.search(text) or _EARLIER.search(text) or _LATER.search(text)
    return text[shift.start() :] if shift else ""


def _split_when(text: str) -> tuple[str, str]:
    """(which appointment, the new time): "move my tuesday appointment to friday" splits at "to"."""
    matches = list(_NEW_TIME_START.finditer(text))
    if matches:
        # The last "to …" names the new time; what comes before it names the appointment.
        cut = matches[-1].start()
        return text[:cut].strip(), text[cut:].strip()
    when = _new_time(text)
    return (text[: len(text) - len(when)].strip() or text, when.strip())


def specializations_of_directory() -> list[tuple[Specialization, tuple[str, ...]]]:
    """Each specialization of the directory with its names (name and synonyms, longest first); one query.
    The booking desk reads the directory through it too."""
    return [
        (s, tuple(sorted({s.name, *(str(n).lower() for n in s.synonyms or [])}, key=len, reverse=True)))
        for s in Specialization.objects.all()
    ]


def directory_words(names_of_each: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    """The words of the directory's names that a typo is read as ("the ear nosr and throat doctor",
    "a pediartician"): words of four letters or more, so that short words are not bent into them."""
    words = {w for names in names_of_each for name in names for w in name.split()}
    return tuple(sorted(w for w in words if len(w) >= 4 and w.isalpha()))


# "the urologist", "my skin doctor", "with Dr Chen": a specialist the patient has an appointment with.
# Read without the directory, so the desk's decision needs no database (its first-step evaluation).
_SPECIALIST = re.compile(
    r"\b(?:the|my|with|see)\s+(?:\w+\s+)?(?:\w+(?:ologist|iatrist|ician|ist|edist|paedist)s?|doctor|specialist|gp|"
    # "Dr Moreno", "doctor patel"; not "the doctor appointment on friday"
    rf"surgeon|physician|dentist|dietitian|dietician|physio|ent)\b|\b(?:dr\.?|doctor)\s+(?!{_APPOINTMENT}\b|{_DAYS}\b|"
    r"(?:on|at|in|for|to|is|was|and|or|next|this|please|pls|thanks|tmrw|tmr|again|instead|today|tonight)\b)[a-z]\w+",
    re.I,
)


def _names_specialist(text: str) -> bool:
    return bool(_SPECIALIST.search(text))


_GENERIC = {"doctor", "specialist", "physician", "surgeon", "the", "my", "with", "see", "dr", "dr."}


def _names_a_specific_specialist(words: str) -> bool:
    """Whether ``words`` name a kind of specialist or a doctor, not just "the doctor"."""
    return any(set(m.group(0).lower().split()) - _GENERIC for m in _SPECIALIST.finditer(words))


def _said(name: str, low: str) -> bool:
    return bool(re.search(rf"\b{re.escape(name)}s?\b", low))


# --- which appointment --------------------------------------------------------------


def choose(appointments: list[Appointment], words: str, today: dt.date) -> list[Appointment]:
    """The appointments ``words`` may mean: by specialization or specialist named, by day and part
    of the day, by its number in a list just shown, or "the next one"; all of them when the words
    name none of these."""
    specializations = specializations_of_directory()
    typed = words.lower()  # a surname as typed: "Pitt" is no typo of "pit"
    words = typos_read(words, directory_words(names for _, names in specializations))
    low = words.lower()
    number = _NUMBER.search(words)
    if number is not None:
        position = int(number.group(1)) if number.group(1) else _ORDINALS.index(number.group(2).lower()) + 1
        return [appointments[position - 1]] if 0 < position <= len(appointments) else []
    found = appointments
    named = [s.pk for s, names in specializations if any(_said(n, low) for n in names) or clipped_spans(s.name, low)]
    people = [a for a in found if _surname(a) and re.search(rf"\b{re.escape(_surname(a))}\b", f"{low} {typed}")]
    if people:
        found = people
    elif named:
        found = [a for a in found if a.specialist.specialization_id in named]
    elif _names_a_specific_specialist(words):
        return []  # "the cardiologist" with none booked: not one of the others
    preference = preference_from(["", words], today)
    if preference:
        found = [a for a in found if preference.fits(a.starts_at.astimezone(a.time_zone))]
    if len(found) > 1 and _FIRST.search(low):
        found = found[:1]
    return found


def _surname(appointment: Appointment) -> str:
    parts = [p for p in re.split(r"[\s.]+", appointment.specialist.name) if p and p.lower() not in {"dr", "doctor"}]
    return parts[-1].lower() if parts else ""


# --- the new time ----------------------------------------------------------------


def new_slot(appointment: Appointment, when: str, now: dt.datetime) -> tuple[Slot | None, list[Slot], Preference]:
    """The free slot of the appointment's specialist that fits ``when`` (None when none does), the
    nearest free slots to offer instead, and the preference read from ``when``."""
    tz = appointment.time_zone
    free = list(
        Slot.objects.bookable(now)
        .filter(
            specialist_id=appointment.specialist_id,
            starts_at__gte=now + SEARCH_LEAD,
            starts_at__lt=now + SEARCH_HORIZON,
        )
        .exclude(pk=appointment.slot_id)
        .order_by("starts_at")
    )
    current = appointment.starts_at
    in_next_week = _next_week(free, current, when, now, tz)
    if in_next_week is not None:
        return in_next_week, [], Preference(day=in_next_week.starts_at.astimezone(tz).date(), said=when)
    # "Back a week", "earlier", "later" say where from the current time; otherwise a day or part of day.
    if _WEEK_LATER.search(when):
        preference = Preference(day=current.astimezone(tz).date() + dt.timedelta(days=7), said=when)
    else:
        local = now.astimezone(tz)
        preference = preference_from(["", when], local.date(), local.time()) if when else Preference()
    clock = clock_time(when)
    if clock is not None:
        # "At 2pm" (on the day said, else the appointment's own day): that time, or the nearest ones.
        day = preference.day or current.astimezone(tz).date()
        wanted = dt.datetime.combine(day, clock, tzinfo=tz)
        exact = [s for s in free if s.starts_at == wanted]
        near = sorted(free, key=lambda s: abs(s.starts_at - wanted))[:NEARBY]
        said = Preference(day=day, said=when)
        return (exact[0] if exact else None), sorted(near, key=_start), said
    local = now.astimezone(tz)
    if preference.weekday_is_today(local.date()) and not any(preference.fits(s.starts_at.astimezone(tz)) for s in free):
        # "Move it to friday", said on a Friday with nothing free left today: the coming Friday
        preference = preference.a_week_on()
    if preference:
        fitting = [s for s in free if preference.fits(s.starts_at.astimezone(tz))]
        # Only a part of the day ("something in the afternoon"): the fitting time nearest the old one.
        fitting.sort(key=lambda s: abs(s.starts_at - current) if preference.day is None else s.starts_at)
        if fitting:
            return fitting[0], [], preference
        return None, sorted(sorted(free, key=lambda s: abs(s.starts_at - current))[:NEARBY], key=_start), preference
    if _EARLIER.search(when):
        earlier = [s for s in free if s.starts_at < current]
        return (earlier[0] if earlier else None), free[:NEARBY], preference
    if _LATER_DAY.search(when):
        # "to a later date": a day after the appointment's, not an hour later on it
        day = current.astimezone(tz).date()
        later = [s for s in free if s.starts_at.astimezone(tz).date() > day]
        return (later[0] if later else None), free[:NEARBY], preference
    if _LATER.search(when):
        later = [s for s in free if s.starts_at > current]
        return (later[0] if later else None), free[:NEARBY], preference
    return (free[0] if free else None), [], preference


_LATER_DAY = re.compile(r"\b(?:later|another|a different|other)\s+(?:date|day)\b", re.I)


_NEXT_WEEK = re.compile(r"\bnext week\b", re.I)


def _next_week(free: list[Slot], current: dt.datetime, when: str, now: dt.datetime, tz: Any) -> Slot | None:
    """ "Move it to next week": a free slot in the calendar week after this one (Monday to Sunday, in
    the patient's zone), on the appointment's weekday at its time if free, else the earliest that
    week (in the part of the day said, if one is). None when the words do not say next week, or the
    week has no such slot (the caller then reads the words as "a week later")."""
    if not _NEXT_WEEK.search(when or ""):
        return None
    today = now.astimezone(tz).date()
    monday = today + dt.timedelta(days=7 - today.weekday())
    part = _PARTS.search(when)
    wish = Preference(part=part.group(0).lower()) if part else Preference()
    week = [
        s
        for s in free
        if monday <= s.starts_at.astimezone(tz).date() < monday + dt.timedelta(days=7)
        and wish.fits(s.starts_at.astimezone(tz))
    ]
    old = current.astimezone(tz)
    same = [s for s in week if s.starts_at.astimezone(tz).weekday() == old.weekday()]
    same_time = [s for s in same if s.starts_at.astimezone(tz).time() == old.time()]
    chosen = same_time or same or week
    return chosen[0] if chosen else None


def _start(slot: Slot) -> dt.datetime:
    return slot.starts_at


def time_date(slot: Slot, tz) -> str:
    start, end = slot.starts_at.astimezone(tz), slot.ends_at.astimezone(tz)
    return f"{start:%H:%M}-{end:%H:%M}, {start:%d/%m/%Y}"


# --- in the runtime -----------------------------------------------------------------


def request_for(message: str, use_case: str | None = None) -> DeskRequest | None:
    """What the rules read in ``message``; else, when the first step's classifier routed it here
    (``use_case``, agents.first_step), the request of that kind with the message's own words."""
    found = read(message)
    if found is not None or use_case not in _ROUTED:
        return found
    text = prepared(message, _VOCABULARY)
    if _ROUTED[use_case] == RESCHEDULE:
        target, when = _split_when(text)
        return DeskRequest(RESCHEDULE, target, when)
    return DeskRequest(_ROUTED[use_case], text)


_ROUTED = {"appointments_list": LIST, "appointments_cancel": CANCEL, "appointments_reschedule": RESCHEDULE}


def _original(runner: Runtime) -> DeskRequest | None:
    """The request a desk question belongs to, read again from the user's message (as it was first)."""
    from agents import first_step  # the classifier, asked only when the rules read nothing

    parts = request_parts(runner.conversation)
    if not parts:
        return None
    return read(parts[0]) or request_for(parts[0], first_step.route(parts[0]))


def handle(runner: Runtime, use_case: str | None = None) -> bool:
    """Do the desk's part of the chat's unread message; True when the run needs nothing more now
    (answered, or waiting for the user), False when the model goes on (not the desk's, or a further
    request for a new booking remains). ``use_case``: the first step's classifier routed it here."""
    states = runner.states
    if not states:
        return False
    last = states[-1]
    if last["from"] == "user":
        request = request_for(str(last["value"]), use_case)
        if request is None:
            return False
        return _start_request(runner, request)
    asked = _desk_call(states)
    if asked is None or last["from"] != "observation":
        return False
    request = _original(runner)
    if request is None:
        return False
    if asked in QUESTION_TOOLS:
        return _which_answered(runner, request, _answer(last))
    # A cancel or a move was answered: the tool's result says what the record now holds.
    return _finish(runner, request, "the user answered; the record says what happened.")


def _desk_call(states: list[dict[str, Any]]) -> str | None:
    return desk_steps.desk_tool(states, DESK)


def _answer(observation: dict[str, Any]) -> str:
    return desk_steps.users_answer(observation)


def _candidates(runner: Runtime, request: DeskRequest) -> tuple[list[Appointment], list[Appointment]]:
    """(every upcoming appointment, those the request may mean)."""
    now = runner.clock()
    every = upcoming(runner.conversation.user, now)
    today = now.astimezone(_tz(runner)).date()
    if request.kind == LIST:
        return every, choose(every, request.target, today) if _names_one(request.target) else every
    return every, choose(every, request.target, today)


def _tz(runner: Runtime):
    return runner.context(len(runner.states)).tz


def _names_one(words: str) -> bool:
    return _names_specialist(words) or _day_named(words) or bool(_PARTS.search(words))


def _start_request(runner: Runtime, request: DeskRequest) -> bool:
    every, meant = _candidates(runner, request)
    log.info("conversation %s: appointments desk: %s", runner.conversation.pk, request.kind)
    if request.kind == LIST:
        if meant is every:
            _plan(runner, "the user asks about their appointments.", "List the user's upcoming appointments.")
            runner.execute_call({"tool": "get_upcoming_appointments", "parameters": {"user_id": runner.user_ref}})
        elif meant:
            _tell(runner, "the user asks about some of their appointments.", listing(meant))
        else:
            _tell(
                runner,
                "no upcoming appointment matches.",
                f"I found no upcoming appointment like that. {listing(every)}",
            )
        return _finish(runner, request, "the user was told.")
    return _act_on(runner, request, every, meant)


def _act_on(runner: Runtime, request: DeskRequest, every: list[Appointment], meant: list[Appointment]) -> bool:
    verb = "cancel" if request.kind == CANCEL else "move"
    if not every:
        _plan(runner, f"the user asks to {verb} an appointment and has none upcoming.", "Tell the user.")
        _notify(runner, listing([]))
        return _finish(runner, request, "the user was told.")
    if not meant:
        _plan(runner, f"no upcoming appointment matches what the user asked to {verb}.", "Tell the user.")
        _notify(runner, f"I found no upcoming appointment like that to {verb}. {listing(every)}")
        return _finish(runner, request, "the user was told.")
    if len(meant) > 1:
        _plan(runner, f"more than one appointment could be the one to {verb}.", "Ask the user which one.")
        runner.execute_call(
            {
                "tool": "get_input_from_user",
                "parameters": {
                    "user_id": runner.user_ref,
                    "questions": f"Which appointment shall I {verb}? {_numbered(meant)} Reply with its number.",
                },
            }
        )
        return True
    return _propose(runner, request, meant[0])


def _numbered(appointments: list[Appointment]) -> str:
    return " ".join(
        f"{i}) {specialist_label(a.specialist)} on {a.when_text()}." for i, a in enumerate(appointments, start=1)
    )


def _which_answered(runner: Runtime, request: DeskRequest, answer: str) -> bool:
    every, meant = _candidates(runner, request)
    chosen = choose(meant, answer, runner.clock().astimezone(_tz(runner)).date())
    if len(chosen) != 1:
        verb = "cancel" if request.kind == CANCEL else "move"
        _plan(runner, "the answer does not say which one.", "Tell the user nothing was changed.")
        _notify(runner, f"Nothing was changed: I could not tell which appointment to {verb}. {listing(every)}")
        return _finish(runner, request, "the user was told.")
    return _propose(runner, request, chosen[0])


def _propose(runner: Runtime, request: DeskRequest, appointment: Appointment) -> bool:
    label = specialist_label(appointment.specialist)
    if request.kind == CANCEL:
        _plan(
            runner, f"the user asks to cancel the appointment with {label}.", "Ask the user to confirm, then cancel it."
        )
        runner.execute_call(
            {
                "tool": "cancel_appointment",
                "parameters": {"user_id": runner.user_ref, "appointment_id": str(appointment.pk)},
            }
        )
        return True
    slot, nearby, preference = new_slot(appointment, request.when, runner.clock())
    if slot is None:
        wish = (
            (describe(preference) if preference else "then")
            if not clock_time(request.when)
            else (f"at {clock_time(request.when):%H:%M} on {describe(preference)}")
        )
        offered = "; ".join(f"{a.when_text()}" for a in (Appointment(user=appointment.user, slot=s) for s in nearby))
        _plan(runner, f"{label} has no free time that fits.", "Tell the user the nearest free times.")
        _notify(
            runner,
            f"{label} has no free time {wish}; your appointment stays on {appointment.when_text()}."
            + (f" Free times near it: {offered}. Tell me which one you want." if offered else ""),
        )
        return _finish(runner, request, "the user was told.")
    _plan(runner, f"the user asks to move the appointment with {label}.", "Ask the user to confirm the new time.")
    runner.execute_call(
        {
            "tool": "reschedule_appointment",
            "parameters": {
                "user_id": runner.user_ref,
                "appointment_id": str(appointment.pk),
                "appointment_time_date": time_date(slot, appointment.time_zone),
            },
        }
    )
    return True


def _plan(runner: Runtime, why: str, action: str) -> None:
    desk_steps.plan(runner, DESK, why, action)


def _tell(runner: Runtime, why: str, message: str) -> None:
    desk_steps.tell(runner, DESK, why, message)


def _notify(runner: Runtime, message: str) -> None:
    desk_steps.answer(runner, message)


def _finish(runner: Runtime, request: DeskRequest, why: str) -> bool:
    """End the desk's part: the request ends, or a further booking request goes to the model."""
    if request.rest:
        from agents import booking_desk  # it reads its own part of a mixed request with this module

        booking = booking_desk.read(request.rest)
        if booking is not None:
            return booking_desk.start(runner, booking)  # "… and book me a skin doctor instead"
        # The model goes on with the rest of the request; it reads it alone (:func:`model_view`).
        return False
    return desk_steps.end(runner, DESK, why)


def model_view(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The trajectory as the model reads it: when the desk did its part of a mixed request ("cancel
    the urologist and book me a skin doctor instead"), the request is the rest alone and the desk's
    steps are left out. Shown the whole message and the desk's steps, the small planner, trained on
    one request per conversation, went back to the cancelled appointment and looped. The stored
    trajectory, and so the chat and the agent log, keep everything as it happened."""
    latest = max((i for i, state in enumerate(states) if state["from"] == "user"), default=None)
    if latest is None:
        return states
    desk_steps = [
        i
        for i in range(latest + 1, len(states))
        if states[i]["from"] == "planner"
        and isinstance(states[i]["value"], dict)
        and str(states[i]["value"].get("reason", "")).startswith(DESK)
    ]
    if not desk_steps:
        return states
    request = read(str(states[latest]["value"]))
    if request is None or not request.rest:
        return states
    cut = next((i + 1 for i in range(desk_steps[-1], len(states)) if states[i]["from"] == "observation"), None)
    if cut is None:
        return states
    return [*states[:latest], {"from": "user", "value": request.rest}, *states[cut:]]
