"""The help-now guard (agents/help_now.py and its hook in the runtime): a chat message that asks for
emergency help now starts the hard SOS with the SOS button's own service (the same countdown,
cancel and guard), without a model call; the user is told what the alert's record says and the
chat completes. Past, negated, general or lasting mentions go to the model as before."""

from __future__ import annotations

import itertools

import pytest

from agents import appointment_desk, courtesy, medicine_desk, scope
from agents.help_now import SOS_PAGE, emergency, normalised
from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from agents.services import post_user_message, start_chat
from agents.sos_cancel import asks_to_cancel
from health.models import Alert, AlertEvent, Notification, OutboundMessage
from tests.agents.helpers import call, end, plan, states

COUNTDOWN = 10

EMERGENCIES = [
    # typed in a hurry: letters swapped
    "I cna't bteathe",
    "my mum has passed otu and I can't wake her",
    # a stroke's signs together
    "my dad can't speak and his arm has gone weak",
    "one side of her face and one arm have gone numb",
    "suddenly one leg went weak",
    "my mum is confused and can't lift her arm",
    # an accident, a blow to the head, the heart, a seizure, an allergy now
    "there's been an accident, my dad is badly hurt",
    "my grandma fell and hit her head and is not making sense",
    "i think my heart is stopping",
    "my child has a seizure",
    "my husband has gone blue",
    "my son ate peanuts and is wheezing and his face is swelling",
    # said the way people describe them: a heart attack, a stroke's sudden numbness, a thunderclap
    # headache, someone who does not respond, bleeding and burns, a head injury or an allergy with
    # a comma between its two halves
    "it feels like an elephant is sitting on my chest",
    "sudden numbness in my face and arm",
    "worst headache of my life, it came on suddenly",
    "mum isn't responding",
    "my husband is lying on the floor and won't respond",
    "i cut my wrist and it won't stop bleeding",
    "there is so much blood",
    "i got burned badly with boiling water",
    "grandpa fell in the bathroom and hit his head, he's bleeding and confused",
    "i'm allergic to peanuts and just ate one, my throat feels tight",
    "i've been stung by a bee and my throat is tight",
    "my dad's lips are going blue and he's gasping",
    "he's turning purple",
    "my mum has gone all floppy and won't answer me",
    "our baby has gone limp",
    "he's on the floor and not responding to me",
    "my chest really hurts and i feel sick and dizzy",
    "my mum's face has dropped on one side",
    "my blood sugar is 2.1 and i'm shaking and confused",
    "his sugar is really low and he's drowsy and not making sense",
    "grandpa is breathing very fast and his lips are grey",
    "i got bit by a snake",
    "she's having trouble breathing after eating shrimp",
    "he's bleeding from his ears after a fall",
    # cries for help
    "please send help",
    "someone help me",
    "quick help",
    "someone call for help my dad wont waek up",
    # the issue's own
    "I'm having chest pain and can't breathe",
    "call an ambulance",
    "help, my husband collapsed and isn't breathing",
    "I think I'm having a stroke",
    # explicit requests
    "Please send an ambulance to my house",
    "Someone call 911!",
    "Ring 999, my dad has collapsed",  # British
    "dial 112 now",
    "we need paramedics now",
    "This is an emergency",
    "help me I'm dying",
    "HELP!",
    "SOS",
    "hi SOS",
    "um sos",
    "ok so sos please",
    "please send ambulance fast, my father is serious",  # Indian English
    "Papa ji collapsed, please call ambulance",
    # typos
    "cant breath",
    "chest pian and sweating",
    "i think im having a hart atack",
    "emergancy!! need ambulence",
    "my mum is unconcious",
    "siezure right now",
    "bleeding wont stop",
    # chest pain with what makes it an emergency
    "my chest hurts and the pain is going down my left arm",
    "crushing chest pain",
    "chest is paining and I am breathless",  # Indian English
    "I feel faint and my chest is tight",
    # breathing, stroke, unconscious
    "I can barely breathe",
    "my baby is choking",
    "she's turning blue",
    "my wife's face is drooping and her speech is slurred",
    "He suddenly can't move his right arm and his words are jumbled",
    "my grandfather is not responding",
    "my nan's collapsed in the kitchen",  # British
    "my husband fell down and is not getting up",
    # bleeding, seizure, poisoning, anaphylaxis
    "There's blood everywhere, he cut himself badly",
    "she's having a seizure",
    "my son is fitting",  # British
    "I took too many pills",
    "my toddler swallowed bleach",  # US
    "my friend took an overdose",
    "my throat is closing up, I ate peanuts",
    "I've been stung and my tongue is swelling",
    # present again after a past clause; a question about a person now
    "I had chest pain last week but now I can't breathe",
    "How do I know if I'm having a heart attack? My left arm hurts and my chest is tight",
    "my husband is having a stroke, what do I do",
    "my father, who had a stroke last year, collapsed",  # the past is the stroke's
    "Grandpa is clutching his chest and can't talk",
    "is there an ambulance nearby? my son fell from the roof",
    "chest pain n breathlessness",
    "I took 20 paracetamol",
    "someone's been stabbed",
    "I collapsed and can't get up",
    "help my son swallowed a bottle of pills",
    "he swallowed a whole pack of paracetamol",
    "get me a paramedic",
    # a cry for help in another language: the SOS, not the English-only reply
    "Llamen una ambulancia, por favor",
    "Au secours, mon mari ne respire plus",
    "ambulance bulao jaldi",  # Hindi in Latin letters
    "bachao!",
    # a fourth batch, written as a check after the third's rules: 33 of 38 caught before these rules
    "my dad collapsed in the kitchen and hes not breathing",
    "pls help my wife is having a fit and wont wake up",
    "i think im having a heart attack my left arm is numb and my chest is crushing",
    "grandma fell down the stairs and cant move her legs",
    "my baby swallowed a battery",
    "he took a whole bottle of pills",
    "i took too many of my sleeping tablets i feel really strange",
    "my husband's speech is slurred and one side of his face is droopy",
    "cant breathe cant breathe help",
    "my throat is closing up after the bee sting",
    "my son is choking on a grape",
    "she's unconscious and bleeding from the head",
    "i cut my wrist deep and it's pouring blood",
    "my mom is not waking up and her breathing is weird",
    "call 911 my friend overdosed",
    "i need an ambulance now",
    "my chest is so tight i can barely breathe and im sweating a lot",
    "my toddler fell in the pool and isnt breathing properly",
    "severe allergic reaction my face is swelling and i cant swallow",
    "he is having a stroke i think, his arm went weak all of a sudden",
    "my wife is pregnant and bleeding heavily",
    "the baby is turning blue",
    "my father is coughing up lots of blood",
    "we were in a car crash and my brother is hurt badly",
    "there's a lot of blood and he's passing out",
    "i got electrocuted and my heart is racing weird",
    "my daughter has a really stiff neck, a high fever and a purple rash that doesnt fade",
    "my sugar is 35 and i'm shaking and can't think straight",
    "i can't feel the left side of my body",
    "sudden blindness in one eye and a terrible headache",
    "he's had a seizure for more than 5 minutes",
    "she fainted and hit her head and now shes vomiting",
    "my heart is pounding and i think i'm going to pass out, chest pain too",
    "i drank bleach by accident",
    "he inhaled a lot of smoke from the fire and is struggling to breathe",
    "severe pain in my chest spreading to my jaw",
    "my mum's collapsed please send help",
    "Help! my husband isn't breathing",
    # chest pressure said as a picture, a headache said as the worst ever
    "My chest feels like an elephant is sitting on it and my left arm is numb",
    "there's a weight on my chest and I'm sweating buckets",
    "worst headache ever, came on suddenly",
    # the people the SOS tells, asked for; a racing heart with fainting
    "notify my emergency contacts, I'm in danger",
    "my heart is racing at 200 and I'm about to faint",
    # a fifth and sixth batch, written as a check of the rules before these were added
    "she drank a bottle of vodka and took pills and won't respond",
    "the baby has a fever and a rash that doesnt go away when i press a glass on it",
    "he's been in the cold water and won't wake up",
    "my blood pressure is 220/130 and i have a terrible headache",
    "i fell and i can't get up, i think my hip is broken and i'm alone",
    "there's a fire and someone inhaled smoke and is coughing badly",
    "my oxygen is 82 percent and im struggling",
    "my heart rate is 210 and i feel faint",
    "my pulse is 30 and i'm dizzy and about to pass out",
    "nan's been sick with blood in it and is very pale",
    "i think my appendix burst, the pain is unbearable",
    "our baby isn't moving much and feels floppy",
    "I need help fast my husband's chest pain is getting worse and he's grey",
    "get help now",
    "we were in a crash, my leg is trapped",
    "my mum took her whole month of pills at once",
    "toddler found my pills and ate some of them",
    "he's going in and out of consciousness",
    "she keeps passing out",
    "he can't stay awake and his breathing is weird",
    # a seventh batch (27 of 40 were caught before its rules)
    "dad is talking funny and his face looks wrong",
    "mum can't find her words and her arm is weak",
    "wheezing so badly she can't talk in sentences",
    "he cut his hand deep and it's spurting",
    "my sugar is very low, i'm shaky, sweaty and confused",
    "grandad is very cold, shivering and not making sense",
    "she's been in the sun all day, now confused and not sweating",
    "my baby is not feeding and very floppy and hard to wake",
    "he's foaming at the mouth and shaking",
    "my friend isn't waking up after drinking",
    "he's slumped and his breathing is noisy and he won't wake",
    "mum fell and is bleeding from her head and won't answer me",
    "dad is confused, sweating and his sugar is 2.0",
    # an eighth batch (28 of 40 were caught before its rules)
    "she's breathing really fast and her lips look dusky",
    "my dad's speech went weird all of a sudden",
    "grandma is on the floor and can't get up and is confused",
    "i can't move my legs suddenly",
    "my chest is killing me",
    "he's got a knife wound",
    "i have a crushing pain across my chest and down my arm",
    "he's really drowsy and his blood sugar is 30",
    "he swallowed a lot of pills and is sleepy",
    "baby's soft spot is bulging and she won't stop crying and has a fever",
    "there's been an explosion and people are hurt",
    "took 20 of my blood pressure tablets",
    # a ninth batch (26 of 30 were caught before its rules; thoughts of suicide alone get the crisis
    # answer, tests/agents/test_crisis_guard.py)
    "i've been having chest pains for the last hour and my arm is numb",
    "I'm going to kill myself",
    "i have a gun and i want to die",
    "suicidal and have pills ready",
    "I've got a rope and I want to end it all",
    "my son says he is going to kill himself, he has a knife",
    "hey help me now pls",
    # a tenth batch (37 of 40 were caught before its rules)
    "my heart is beating really fast and i feel like i'm going to faint",
    "dad can't move one side of his body",
    "he's bleeding from his head after a fall",
    # an eleventh batch (22 of 30 were caught before its rules)
    "my husband is on the floor making gurgling noises",
    "my waters broke and the baby is coming now",
    "I got an electric shock and my chest hurts",
    "he's cold and clammy and barely conscious",
    "my toddler fell in the pool",
    "i burned myself really badly with boiling water, skin is peeling off",
    "I can't stop shaking and I think I'm going to pass out, my sugar is 2.1",
    "911 please",
    # typed fast: a typo of any word the patterns are written with, a letter typed twice, a short
    # word with two letters swapped (535 typed variants of the ninth to eleventh batches: 26 missed
    # before, 6 after)
    "my mom is confused and her blood sygar is really low",
    "he's breathing funny and won't respobd to me",
    "my son wzs bitten by a snaje",
    "a dog attacked my daughter and she's bleeding bbadly",
    "my toddler fell in tthe pool",
    "hello, my baby is turning bluue",
    "I got an electric sshock and my chest hurts",
    "dad can't move oen side of his body",
    # a twelfth batch (28 of 30 were caught before its rules; typed 5 times each, 148 of 150)
    "I took 30 paracetamol an hour ago",
    "my chest is being crushed and I'm sweating",
    "my waters broke and the babys coming now asap",
    # a thirteenth batch (27 of 30 caught before its rules; typed 5 times each, 132 of 150 before, 148 after)
    "heavy bleeding after giving birth yesterday, feeling faint",
    "my brother is threatening to kill himself and has a knife",
    "I think I'm having an allergic reaction, my throat feels tight and I'm wheezing",
    "im having really bad chest paim and my left arm is numb",
    "my little girl has a purple rsh that doesn't fade and a high fever",
    # a whole-message request behind a greeting or with thanks after it (the tested emergencies typed
    # 5 times each with the generator's padding: 1,074 of 1,095 caught before, 1,085 after)
    "hello someone help me",
    "hi there quick help",
    "good morning hi sos",
    "good morning get help now",
    "hey help me now pls pls",
    "um 911 please thx",
    "he's cold and clammy and barly conscious",  # a letter left out is the likeliest slip
    # a fourteenth batch (26 of 30 caught before its rules)
    "there's been a bad fall at home and my mum can't move her legs",
    "I can't feel my face and my arm went numb suddenly",
    "i feel like i'm going to pass out and my chest is really tight",
    # a fifteenth batch (39 of 40 caught before its rule): too breathless to talk
    "my chest is tight and I can barely get words out",
    # a sixteenth batch (26 of 30 caught before its rules)
    "my neighbour found her husband hanging",
    "theres smoke everywhere and my son cant stop coughing and wheezing",
    "I'm having trouble breathing and my throat feels like it's closing",
    "my sister is threatening to jump off the bridge",
    "he tried to hang himself, I just cut him down",
    # a seventeenth batch, typed as in a hurry (26 of 30 caught before its rules)
    "help me im bleding alot",
    "i think ive had a stroke cant move my arm",  # "ive" is "i've", not a typo of "five"
    "help my face is swelling and i cant swallow after the bee sting",
    "my husband's had a bad fall and there's blood coming out of his ear",
    # an eighteenth batch: carers and less common emergencies (17 of 20 caught before its rules)
    "My 80 year old father is breathing very strangely and won't answer me",
    "please my husband is diabetic and he's sweating and not making sense",
    "my wife is 35 weeks pregnant and has a terrible headache and blurry vision",
    # a nineteenth batch, as learners of English and relatives type (12 of 20 caught before its rules)
    "please come my wife she is not breathe",
    "grandma fell in bathroom lot of blood from head",
    "help I've cut my hand very deep and can see the bone",
    "my uncle's face has gone weird on one side and he's talking rubbish",
    "my partner is having a really bad reaction to penicillin his face is huge",
    "i fell and hit my head on the concrete and now my vision is double",
    "our dog bit my son's face and it's pouring with blood",
    # a twentieth batch, as learners of English type (12 of 20 caught before its rules)
    "my son drink the cleaning liquid",
    "my wife faint and now she is shaking all body",
    "blood is coming from my mouth a lot",
    "my daughter took many tablets of her grandmother",
    "please help fire in my house and my children inside",
    "my father fell from the bike and his head is bleeding very much",
    "the woman is giving birth in the car",
    "i was bitten by snake in the field",
    # a twenty-first batch
    "i cant wake my grandmother up",
    "I can not get my son to wake up",
    "we cant wake the baby up",
    "ok this is weird but my heart is going like 200 and i feel like im going to pass out",
    "sorry to bother but my baby has a fever and now she is floppy and not feeding",
    "i think i broke my leg its bent the wrong way and im alone",
    "my grandad has fallen and theres blood coming from his head and hes confused",
    # a twenty-second batch
    "a snake bit me",
    "a snake just bit my son on the ankle",
    "my dog bit my son and he's bleeding heavily and it won't stop",
    "pls help my husband just fell down and he is not talking",
    "my dad fell and is not moving",
    "my arm and leg went numb suddenly and I can't lift them",
    "suddenly my left arm and leg are numb",
    "i drink too much pills",
    "baby is blue colour",
    "grandmother face is droop and cannot speak",
    "im 8 months pregnant and the baby stopped moving and im bleeding",
    "cant feel my legs after the fall",
    "burned my whole arm with boiling oil",
    "help, my dad is bleeding, come immediately",
    "help me asap",
    "sharp chest pain that won't go away and I'm short of breath",
    "we need an ambo",
    "someone shot my brother",
    "I'm pregnant and have terrible stomach pain and bleeding",
    "there is blood in my vomit and I feel faint",
    "I think I broke my neck",
    "I'm having the worst stomach pain ever and my belly is rock hard",
    "my son is having trouble breathing and the skin between his ribs is sucking in",
    "my mum's had a fall and is bleeding from the head",
    "my jaw and left arm hurt and I feel sick and sweaty",
    "my heart is beating really irregular and I feel like I'll faint",
    "i spilled boiling water all over my child",
    "sudden weakness in both legs and I lost control of my bladder",
    "I don't want to be alive anymore and I have the pills ready",
    "I'm going to end it tonight",
    "he is shaking and foam coming from mouth",
    "i have pain in chest and i am sweating",
    "chest is paining too much",
    "heart paining and left hand paining",
    "i am feeling heavy chest and breathless",
    "there's an elephant on my chest",
    "i feel like someone is squeezing my heart",
    "i'm wheezing badly and can't talk",
    "my throat is tight after the new antibiotic",
    "nosebleed for an hour and it won't stop",
    "the bleeding hasn't stopped",
    "he's bleeding from his ears after hitting his head",
    "my baby fell off the bed and is very drowsy and vomiting",
    "my dad has heatstroke he's confused and not sweating",
    "my grandad is burning hot and confused",
    "i have a knife and I'm going to hurt myself",
    "i fell in the shower and can't get up",
    "my hip is broken, i'm on the floor",
    "the pain is unbearable in my chest",
    "i can't see out of my left eye all of a sudden",
    "I need to go to the ER right now",
    "take me to the emergency room",
    "my elderly mother is slumped in her chair and won't answer me",
    "my husband suddenly can't understand what I'm saying and his arm is weak",
    "I have a sudden terrible headache and can't look at light",
    "baby has been breathing really fast and is grunting",
    "my toddler is having a febrile seizure",
    "my 2 year old is limp and won't respond",
    "the child swallowed a magnet",
    "my husband cut his hand with the chainsaw",
    "my finger was cut off",
    "I chopped off the tip of my finger",
    "I was hit on the head with a bat and I'm dizzy and vomiting",
    "my dad was attacked and is bleeding from the head",
    "I have crushing pain and I'm about to pass out",
    "every breath is a struggle",
    "my oxygen levels are dropping, 85 on my watch",
    "my pulse is really weak and I feel like I'm going to collapse",
    "I took my insulin twice and now I'm shaky and confused",
    "my mum took double her heart tablets and is very dizzy",
    "I've been burned by acid",
    "chemical in my eye and I can't see",
    "my child got bleach in her eyes",
    "pregnant and my face and hands swelled up suddenly with a terrible headache",
    "save my baby",
    "my little girl is limp after her nap and won't wake up",
    "my brother just collapses on the floor",
    "ok so i cn't breathe please",
    "please help I ca't breathe",
    "my sister too a whole bottle of pills thank you x",
    "my daughter hqd a fit and is still shaking",
    "baby choke",
    "wife fit not stop",
    "my husband he fall and head blood coming",
    "accident on highway people hurt",
    "my child eat many tablets of me",
    "he cut himself very deep with knife",
    "my wife is pregnant and bleeding heavy",
    "child has fallen from 2nd floor",
    "my son is burnt all over",
    "kid stuck something in throat",
    "please ambulance come fast my mother is sick very much she is not talk",
    "mum fall down not wake",
    "husband chest pain sweating",
    "dad is sitting in his chair gasping and sweating",
    "the baby's breathing has gone really slow and she's pale",
    "my son has been stung by a wasp and his face and tongue are huge",
    "she swallowed a load of her antidepressants an hour ago",
    "my friend's been knocked off his bike and is bleeding from his head",
    "there's a man lying in the road who was hit by a van",
    "my father is 90, he fell and his hip looks twisted and he can't stand",
    "my wife is shaking all over and her eyes rolled back",
    "the kid next door fell through the ice",
    "my partner's heart is beating at 220 and he's about to pass out",
    "i'm bleeding from my bum a lot and feel faint",
    "he got his arm caught in a machine and it's mangled",
    "she burnt her face with a chip pan fire",
    "mum can't lift her arm and her speech is off",
    "we think nan's had a heart attack",
    "there's blood pouring from his leg after the accident",
    "the old man upstairs isn't answering and I can hear him groaning on the floor",
    "I've been bitten by an adder",
    "the fire spread and my husband is trapped upstairs",
    "my child has a purple rash and is very sleepy",
    "i'm bleeding loads after my operation",
]

NOT_EMERGENCIES = [
    "hi can you give me something to help me sleep asap",
    "help me book a dermatologist asap",
    "i take too many vitamins",
    "the baby's blue blanket is lost",
    "my face is droopy when I'm tired",
    "he collapsed on the sofa after work and isn't moving till dinner lol",
    "pregnant, the baby is moving a lot at night, is that normal",
    "I burned my whole dinner lol, anyway can I book a GP",
    "my son fell asleep and won't talk to me",
    "I have trouble breathing when I climb stairs",
    "I'm having trouble breathing through my nose because of my cold",
    "I'm pregnant and had bad cramps and a little spotting, should I see someone",
    "I'm pregnant, no bleeding, but I have severe morning sickness",
    "my jaw and left arm hurt after lifting weights, no sweating or anything",
    "I broke my back lifting boxes all day at work",
    "someone shot me a message about my appointment",
    "she shot me a look when I asked about my pills",
    "I lost control of my bladder when I sneezed",
    "my legs feel weak and sometimes I can't control my bladder",
    "my stomach is rock hard from constipation, no pain",
    "I want to end it with my boyfriend tonight",
    "we need to talk about the ambo bill",
    "the chest pain went away after I rested",
    "my mum had a fall last year and cut her head, she's fine now",
    "my friend is having a hard time with breathing exercises in yoga",
    "there was blood in my vomit once in the summer, who should I see",
    "can you take me to the hospital tomorrow for my appointment",
    "I get confused easily and I've been burning up since yesterday",
    "my baby grunts a bit when she poos, is that normal",
    "my 2 year old is limp with tiredness after the party lol",
    "I slumped on the sofa and didn't move all evening",
    "I cut the hedge with the chainsaw yesterday, my shoulder aches now",
    "I cut my finger with an axe last month and it's healed",
    "the pharmacy cut off my repeat prescription",
    "my wife got beaten at chess and is sulking",
    "I got kicked at football and have a bruise, no bleeding",
    "my son was punched at school last week, can I book a GP to check his nose",
    "I took double my vitamin D by mistake, I feel fine",
    "I took my blood pressure tablet twice this morning, what should I do",
    "my dad took an extra dose of his insulin, he seems fine, should I worry",
    "I'm diabetic and confused about my insulin doses",
    "I'm pregnant and my ankles are swollen, no headache",
    "I'm pregnant with a bad headache, can I take paracetamol",
    "I use bleach to clean the bathroom, is that safe",
    "the acid reflux burns after meals",
    "my oxygen was 88 on the plane last year",
    "save my appointment for next week",
    "save my details",
    "every breath I take hurts a little since my cold",
    "crushing pain in my knee when I climb stairs",
    "my pulse is weak in the mornings",
    "suddenly I can't understand my insurance letter",
    "my son swallowed a coin, he's fine and breathing normally",
    "the tip of my finger is numb",
    "I had a fit last year and still shake when nervous",
    "I just collapse on the sofa after work",
    "I drink too much coffee",
    "my inhaler isn't helping my asthma as much, I'd like to see a lung doctor",
    "I choke on big pills sometimes, can I get them smaller",
    "my son chokes on his food a lot, should he see someone",
    "the baby has a cold and a stuffy nose",
    "my daughter has a stuck feeling in her throat after eating bread, no trouble breathing",
    "my period is heavy this month",
    "bleeding heavy periods for months, want a gynaecologist",
    "we live on the 2nd floor, can the doctor visit",
    "I had an accident at work last year and hurt my back",
    "car accident 3 years ago, neck still hurts",
    "I burned my hand on the oven, small blister",
    "I cut myself shaving, bleeding a little",
    "my child eats many sweets",
    "my toddler ate some of my chocolate",
    "the fits stopped years ago, I'm off my epilepsy meds, who should I see",
    "his shaking is not stopping him from working",
    "my son rolled his eyes at me when I said he needs a checkup",
    "my tongue looks huge in photos lol",
    "I swallowed a load of vitamins this morning as usual",
    "I hit my head on the shelf, no bleeding from the head, just a bump",
    "I was hit by a van 5 years ago and my hip still aches",
    "my boss mangled my schedule, I need to move my appointment",
    "I fell last month and can't stand for long since, who should I see",
    "my heart was beating at 120 after the gym",
    "my breathing is slow and deep when I meditate",
    "dad was gasping for a cup of tea after the walk",
    "I burned my face in the sun on holiday, it's peeling a bit",
    "my nose was bleeding from my left nostril a little this morning",
    "the kids went through the ice cream too fast",
    "she's gasping for a drink",
    "I think my dad's had a stroke in the past, can I book a neurologist",
    "we think mum's had a cold for a week, should she see someone",
    "my mum had a heart attack in 2019 and needs a cardiology check",
    "I can't lift my arm above my head since the gym, and my voice is hoarse",
    "my son was bitten by a dog last month, the wound is healing",
    "the fire alarm went off and I was trapped in the lift for 5 minutes yesterday",
    "I feel trapped, my job is on fire with deadlines",
    "my baby has a purple bruise and is sleepy after her nap",
    "I bled a lot after my operation last year",
    "the app is not responding",
    "my phone is not responding",
    "my kid is stuck in a rut with school",
    "he passed out last year and now he won't talk about it",
    "I was stabbed by a needle at the clinic, is that a problem",
    "my legs went weak suddenly after the marathon",
    "I fell over and I can't move my ankle much, it's swollen",
    "my heart races when I'm anxious and sometimes I feel faint",
    "my heart was racing last week and I felt faint",
    "I broke my arm last year and it healed at a funny angle",
    "he fell last month and his head was bleeding, now he is fine",
    "I can't wake my husband up for work in the mornings",
    "how do I know if someone is having a stroke",
    "what should I do if a person is having a seizure",
    "how can you tell when somebody is having a heart attack",
    "my chest feels like it's burning after spicy food",
    "I can barely talk since my cold, my voice is hoarse",
    "he tried to kill himself last year and is doing much better now",
    "I found my old coat hanging in the wardrobe",
    "my kids are hanging out at the park, I saw him hanging around the shop",
    "the kitchen is full of smoke because I burnt the toast",
    "I smoke a pack a day and have been coughing for months now",
    "my son wants to jump off the diving board but he's scared",
    "my chest is tight when I run and I get a bit breathless",
    "my dad had a stroke last year and can't move his arm well",
    "I've had a stroke before and want a check-up with a neurologist",
    "I sweat alot at night and feel tired",
    "there was a bit of blood coming out of his ear after swimming",
    "she might have had a seizure in her sleep last month",
    "I'm pregnant and have a bad headache, which painkillers are safe",
    "my husband is diabetic and gets confused about his insulin doses",
    "my mum is diabetic and I'm confused about what she should eat",
    "she's breathing strangely at night, should we see a doctor",
    "my son is breathing weird and won't answer the phone",
    "I'm not breathing through my nose well since the cold",
    "the x-ray showed a bone spur in my heel",
    "I can see the bone in my foot is a bit crooked on the scan",
    "I had a reaction to penicillin as a child, is amoxicillin ok",
    "he hit his head last year and now has double vision sometimes, which doctor",
    "my smile looks crooked on one side in photos since birth",
    "can't stop shaking and my sugar is 2.5",  # a hypo the patient treats: sugar first, no ambulance
    # the day's doses asked about, or done (the medicines desk's), not an overdose
    "have I taken all my pills today",
    "has he taken all his tablets yet",
    "I have taken all my pills for today",
    "I'm giving birth in March, which hospital should I book",
    "she is giving birth in a few weeks and wants a check-up",
    "my son drinks a lot of cola, is that bad",
    "I took many tablets over the years for my back pain",
    "I fainted last week and was shaking all over, I want to see a neurologist",
    "blood is coming from my nose a little when I blow it",
    "I was bitten by a snake as a child",
    "the worst headache ever was last year, now I just want a check-up",
    "how do I add my emergency contacts?",
    "don't notify my emergency contacts about this",
    "my heart races when I drink coffee",
    "I'm in danger of missing my appointment",
    "can someone help me with my appointment",
    "my son has seizures, book a neurologist",
    "I had an accident last year and my knee still hurts",
    "my fingers have gone blue in the cold",
    "I'm allergic to cats and my eyes are swelling",
    "my hay fever allergy makes me wheeze every spring",
    # words one letter from an emergency word that are typos of something else, or words
    "my acne is leaving scurring on my cheeks",
    "my vision keeps blurring when I read",
    # past
    "I had chest pain last month, book a cardiologist",
    "Can you book a cardiologist? I had chest pains two weeks ago",
    "I had a stroke in 2019, I need a neurologist follow-up",
    "my mother had a stroke, book a neurologist for her",
    "I fainted yesterday, can I see a doctor?",
    "I had a heart attack 3 years ago and want a cardiology check-up",
    "My father died of a heart attack, I want a check-up",
    # negated
    "no chest pain",
    "no I don't have chest pain or shortness of breath",
    "I don't need an ambulance",
    "It's not an emergency, but my knee hurts",
    "the pain in my chest went away",
    # general questions (decided: information, not a request)
    "What are the signs of a stroke?",
    "what should I do if someone has a stroke?",
    "is this an emergency?",
    # lasting, or no red flag by itself
    "I get chest pain when I climb stairs",
    "I have chest pain, can you book me a cardiologist?",
    "chest pian when i breath",
    "my chest feels tight and I keep wheezing",
    "I've been short of breath for weeks when walking",
    "I can't breathe through my nose, it's blocked",
    "I think I have food poisoning",
    "heavy bleeding during my period",
    "I need an appointment for my seizure medication",
    "I'm worried about my stroke risk",
    # the rest of the assistant's work
    "update my emergency contact",
    "what does the SOS button do?",
    "help",
    "what can you help me with?",
    "book me a dermatologist",
    "remind me to take my blood pressure tablets",
    "I'm dying to know when my appointment is",
    "Cancel my appointment with the urologist",
    # complaints the symptom bank books for: the user typing it is awake, or it lasts
    "I passed out",
    "I fainted out of nowhere",
    "I stop breathing in my sleep",
    "my fingertips are turning blue",
    "my face is swollen near my ears",
    "I can't breathe when I lie flat",
    "Amlodipine 5 mg OD, remind me every morning",  # OD: once daily
    "I drank a bottle of water",
    "I had a bottle of wine last night",
    "can you get me a doctor appointment",
    # near the new emergencies: a thing or a treatment that does not respond, a limb after a run,
    # a headache that lasts, a throat tight with worry, a bump with nothing after it
    "the app isn't responding",
    "my doctor's office is not responding to my emails",
    "he's not responding to treatment",
    "my dad won't respond to my calls",
    "sudden weakness in my legs after running",
    "I've had the worst headache of my life for a week",
    "my throat feels tight when I'm anxious",
    "I'm allergic to peanuts, what should I avoid?",
    "I burned my hand cooking, it's a bit red",
    "I got sunburned badly on holiday",
    "I bumped my head on a cupboard, no bleeding",
    "it feels like a weight on my chest when I climb stairs",
    "my son isn't responding to the antibiotics",
    "it went limp during sex",
    "my arm went limp for a second yesterday",
    "I'm gasping for a cup of tea",
    "I'm confused about my blood sugar readings",
    "my glucose was low yesterday and I felt confused",
    "what does a hypo feel like, do you get confused?",
    "my sugar was 3.5 but i'm not confused",
    "I had trouble breathing after eating shrimp last year",
    "my ear is bleeding a bit, I think it's an infection",
    "my lips are grey in winter",
    "I have trouble breathing since taking up smoking",
    # near misses of the fourth batch, and of its rules (a rash, a lost sight, a seizure, one side)
    "my dad had a heart attack last year, I want a cardiology checkup",
    "I had a seizure two years ago, can I see a neurologist",
    "book me a cardiologist, my chest feels a bit tight when I run",
    "my son fell off his bike and scraped his knee",
    "I cut my finger chopping onions, it bled a little",
    "I sometimes feel dizzy when I stand up quickly",
    "I've had a mild headache for three days",
    "can you remind me about my blood thinner",
    "my grandmother had a stroke in 2019 and needs a follow up",
    "what should I do if someone has a heart attack?",
    "I get short of breath climbing stairs lately",
    "my throat is sore and I have a cough",
    "my baby has a mild fever and a runny nose",
    "I took my pills twice by mistake this morning, is that a problem? it was vitamin D",
    "cancel my appointment, I'm feeling better",
    "I'm worried about my blood pressure readings",
    "my heart races when I drink coffee",
    "I have a rash on my arm that's itchy",
    "I feel anxious and can't sleep",
    "my knee hurts when I walk",
    "I went blind in one eye years ago after an accident, can I see an eye doctor",
    "he had a seizure for 5 minutes last year, we need a neurology follow-up",
    "I can't feel my left foot when I sit cross-legged too long",
    "my rash doesn't fade after a week of using the cream",
    "the rash isn't going away, should I see a dermatologist",
    "my blood sugar was high this morning and I'm confused about my insulin dose",
    "my son has epilepsy, his fits usually last about 2 minutes",
    "I get double vision when I'm very tired",
    "my toddler has a fever and some red spots on his tummy",
    "my daughter has a fever and a stiff neck from sleeping badly, should she see a doctor",
    "I can't feel my right hand fingers in the cold",
    "my vision goes blurry when I stand up",
    # near misses of the fifth and sixth batches' rules
    "my blood pressure was 185/125 last week and i had a headache",
    "my blood pressure is 190/100 this morning",
    "bp 150/95 and a bad headache",
    "there's a fire drill at work tomorrow",
    "i breathed in some smoke from the bbq yesterday and my throat hurts",
    "my eczema rash doesn't go away, and it hurts when i press on it",
    "my oxygen was 94 this morning, is that ok",
    "my oxygen tank is at 80 percent, when should I order more",
    "my resting heart rate is 45, i'm a runner",
    "heart rate 155 on the treadmill",
    "i need help now to change my appointment",
    "i keep passing out when i stand up too fast",
    "i was sick after my blood test",
    "my son took his vitamins this morning",
    "my toddler ate his dinner and then took a nap",
    "i'm trapped in a bad job lol",
    "i fell over and can't get up from the sofa without help these days",
    # near misses of the seventh batch's rules
    "my son is talking funny in a silly voice to make his sister laugh",
    "i'm confused about my blood sugar readings, they are high",
    "i was in the sun all day yesterday and got sunburnt",
    "my sugar was 2.5 last week and i felt confused, can i see an endocrinologist",
    "she's not waking up early enough for school",
    "i fell last year and cut my head, now i get headaches",
    "mum fell over in the garden but she's fine, just bruised, can she see a gp",
    "i'm shaking with the cold, can you book a doctor",
    # near misses of the eighth batch's rules; the last five started an SOS before it
    "my speech went weird when i was nervous at the interview last week",
    "the pain across my chest comes and goes when i cough",
    "there's been a shooting pain in my knee for weeks",
    "I had 20 minutes of pain in my knee",
    "I've had lots of itching on my arms",
    "I've taken 12 days off work with this cough",
    "I ate too much at dinner and have heartburn",
    "I ate lots of sweets and now my tooth hurts",
    # near misses of the ninth batch's rules; the first four started an SOS before it
    "I'm worried about having a heart attack one day, can I get a check up",
    "what is the number for emergency services",
    "i was in a car accident last year and my neck still hurts",
    "my dad fainted last week and is fine now, who should he see",
    "i have a knife and fork, what should i eat",
    "this headache is going to kill me",
    "i'm going to end it with my boyfriend",
    "i bought some pills for my cold",
    "I get chest pain for a few minutes when I climb stairs",
    "can you help me now with my booking",
    "my heart beats fast when I exercise and sometimes I feel like I'm going to faint",
    "he had a fall last year and was bleeding from his head",
    "I couldn't move one side of my face after Bell's palsy two years ago",
    "my phone fell in the pool",
    "I went into the water for a swim and now my ear hurts",
    "the baby is coming to visit on sunday",
    "I'm giving birth next month, can I book a gynaecologist",
    "my stomach is gurgling all the time",
    "he snores and makes choking noises at night",
    "I fell in the pool last summer and hurt my knee",
    "I was hoping it was overdoing it at work, but my back still aches",
    # near misses of the twelfth batch's rules: minutes or hours ago is now, and still no emergency here
    "I had chest pain an hour ago but it's gone now",
    "I fainted 20 minutes ago and I feel fine now",
    "my son fell off the swing an hour ago and has a small bump",
    "I took 2 ibuprofen an hour ago and my headache is still there",
    "my chest felt squeezed when I ran for the bus last week",
    "I had a nosebleed a few hours ago, it stopped on its own",
    "when is the baby coming?",
    "when's the baby coming",
    # near misses of the thirteenth batch's rules
    "I had heavy bleeding after giving birth two years ago, can I see a gynaecologist",
    "my brother has a knife collection",
    "he has pills for his blood pressure and wants to see a doctor",
    "I had an allergic reaction last year, my throat felt tight",
    "my sister is threatening to leave home",
    "heavy bleeding during my period, can I book a gynaecologist",
    # near misses of the greeting and thanks taken off
    "hi, can you help me",
    "hello, help please",
    "hey, help me with my booking please",
    "good morning, I need help with my reminders thanks",
    "hi there, what does sos do",
    "hello the sos button thanks",
    # near misses of the fourteenth batch's rules
    "I fell over last year and now I can't move my legs as well as before, can I see a physio",
    "my chest is really sore from coughing for a week",
    "my face feels numb after the dentist and my arm is fine",
    "I had a fall and I can't move my arm much, it's bruised",
]


@pytest.fixture(autouse=True)
def ten_second_countdown(settings):
    settings.SOS_COUNTDOWN_SECONDS = COUNTDOWN


def no_model() -> ScriptedBackend:
    """A model that would loop for ever: the guard must not call it at all."""
    return ScriptedBackend(
        planner=itertools.repeat(plan("Vague.", "Ask what is wrong.")),
        caller=itertools.repeat(call("get_input_from_user", user_id="0", questions="What is wrong?")),
    )


def hard_sos(user) -> list[Alert]:
    return list(Alert.objects.filter(user=user, kind=Alert.Kind.HARD))


def reply(conversation) -> str:
    return next(s["value"]["parameters"]["message"] for s in reversed(states(conversation)) if s["from"] == "caller")


def test_the_tables_are_as_large_as_promised():
    assert len(EMERGENCIES) >= 30 and len(NOT_EMERGENCIES) >= 20


@pytest.mark.parametrize("text", EMERGENCIES)
def test_an_emergency_starts_exactly_one_hard_sos_with_the_countdown_and_no_model(alice, text):
    backend = no_model()

    conversation = start_chat(alice, text, backend=backend)

    assert backend.calls == []
    assert conversation.status == Conversation.Status.COMPLETED
    [alert] = hard_sos(alice)
    assert alert.state == Alert.State.COUNTDOWN
    assert (alert.countdown_ends_at - alert.created_at).total_seconds() == pytest.approx(COUNTDOWN, abs=0.5)
    # the button's own timeline, and where it was asked for
    assert [e.kind for e in alert.events.order_by("pk")] == ["pressed", "countdown_started", "chat_request"]
    assert OutboundMessage.objects.count() == 0, "nothing is sent before the countdown ends"
    said = reply(conversation)
    assert said.startswith("I've started an emergency SOS. Unless you cancel it in the next 10 seconds,")
    assert SOS_PAGE in said and "call 911 now" in said


@pytest.mark.parametrize(
    "text", ["my cat is choking on a hairball", "my dog is not breathing", "the dog is having a seizure",
             "our puppy collapsed and won't wake up"]
)  # fmt: skip
def test_an_animal_in_trouble_starts_no_sos(text):
    # the SOS texts the patient's emergency contacts; a pet's emergency is for a vet (agents.scope)
    assert emergency(text) is None


@pytest.mark.parametrize("text", NOT_EMERGENCIES)
def test_a_message_that_is_no_emergency_goes_to_the_model(alice, text):
    assert emergency(text) is None
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    conversation = start_chat(alice, text, backend=backend)

    # Past the help-now guard: the model, or for a question about the patient's own appointments or
    # medicines the appointments or medicines desk (which answer from the records without it), for a
    # courtesy said alone ("help") the courtesy answer, for a general question ("what are the signs of
    # a stroke?") the scope answer, and for "I don't need an ambulance" the SOS cancel's "no SOS is
    # under way".
    answered = (
        scope.out_of_scope(text)
        or appointment_desk.read(text)
        or medicine_desk.read(text)
        or courtesy.courtesy(text)
        or asks_to_cancel(text, just_started=False)
    )
    assert len(backend.calls) == (0 if answered else 1)
    assert conversation.status == Conversation.Status.COMPLETED
    assert hard_sos(alice) == []


def test_the_trajectory_shows_the_guard_and_the_user_gets_a_danger_notification(alice):
    conversation = start_chat(alice, "call an ambulance", backend=no_model())

    trajectory = states(conversation)
    assert [s["from"] for s in trajectory] == ["system", "user", "planner", "caller", "observation", "planner"]
    assert trajectory[2]["value"]["reason"].startswith("Help-now guard: the user asks for emergency help now")
    alert = Alert.objects.get(user=alice, kind="hard")
    assert trajectory[3]["value"] == {
        "tool": "notify_user",
        "parameters": {"user_id": str(alice.pk), "message": reply(conversation)},
    }
    assert trajectory[4]["value"] == {"result": True}
    assert trajectory[5]["value"]["action"] == "<END>"
    assert f"hard SOS #{alert.pk} started, 10 s countdown" in trajectory[5]["value"]["reason"]
    notification = Notification.objects.get(user=alice, data__conversation=conversation.pk)
    assert (notification.kind, notification.level, notification.data["alert"]) == ("alert", "danger", alert.pk)
    assert AlertEvent.objects.get(alert=alert, kind="chat_request").data == {
        "conversation": conversation.pk,
        "created": True,
    }


def test_through_the_api_the_sos_starts_in_the_request_without_waiting_for_the_worker(alice, alice_api):
    # No on-commit callback runs here: the worker that would run the model never starts, yet the
    # SOS is already counting down when the chat request returns, as after a press of the button.
    response = alice_api.post("/api/conversations/", {"text": "my wife passed out, help"}, format="json")

    assert response.status_code == 201
    assert Conversation.objects.get(pk=response.data["id"]).status == "completed"
    [alert] = hard_sos(alice)
    assert alert.state == "countdown"


def test_an_answer_to_a_question_that_is_an_emergency_starts_the_sos(alice):
    backend = ScriptedBackend(
        planner=[plan("Need details.", "Ask where it hurts.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Where does it hurt?")],
    )
    conversation = start_chat(alice, "I am in pain.", backend=backend)
    assert conversation.status == "waiting_input"

    conversation = post_user_message(
        conversation.pk, alice, "my chest, and I'm sweating and can't breathe", backend=backend
    )

    assert conversation.status == "completed"
    assert len(backend.calls) == 2, "the model was not asked again"
    assert [a.state for a in hard_sos(alice)] == ["countdown"]


def test_cancel_during_the_countdown_works_for_a_chat_started_sos_as_for_the_button(alice, alice_api, alice_contacts):
    start_chat(alice, "I think I'm having a stroke", backend=no_model())
    [alert] = hard_sos(alice)

    response = alice_api.post(f"/api/alerts/{alert.pk}/cancel/")

    assert response.status_code == 200
    alert.refresh_from_db()
    assert alert.state == Alert.State.CANCELLED
    assert OutboundMessage.objects.count() == 0
    # and the SOS button's own end, during the countdown, cancels the next one too
    start_chat(alice, "call an ambulance", backend=no_model())
    second = Alert.objects.get(user=alice, kind="hard", state="countdown")
    assert alice_api.post(f"/api/sos/{second.pk}/end/").json()["state"] == "cancelled"


def test_a_second_emergency_message_does_not_start_a_second_sos(alice):
    first = start_chat(alice, "call an ambulance", backend=no_model())
    backend = no_model()

    second = post_user_message(first.pk, alice, "please hurry, he's not breathing", backend=backend)
    third = start_chat(alice, "I can't breathe", backend=backend)

    assert backend.calls == []
    [alert] = hard_sos(alice)
    assert alert.state == "countdown"
    for conversation in (second, third):
        assert conversation.status == "completed"
        assert reply(conversation).startswith("An emergency SOS is already under way, so I have not started another")
    assert AlertEvent.objects.filter(alert=alert, kind="repeat_press").count() == 2


def test_an_sos_already_sent_is_not_said_to_be_counting_down(alice):
    start_chat(alice, "call an ambulance", backend=no_model())
    Alert.objects.filter(user=alice, kind="hard").update(state=Alert.State.OPEN)

    conversation = start_chat(alice, "call an ambulance!", backend=no_model())

    said = reply(conversation)
    assert "The SOS page shows who has been messaged so far" in said
    assert "ambulance will be alerted" not in said and "sent" not in said.replace("SOS", "")


def test_past_the_rate_limit_the_user_is_told_to_call_and_no_sos_is_started(alice, settings):
    settings.SOS_MAX_PER_HOUR = 0

    conversation = start_chat(alice, "call an ambulance", backend=no_model())

    assert hard_sos(alice) == []
    assert conversation.status == "completed"
    said = reply(conversation)
    assert said.startswith("I could not start an emergency SOS:") and "Please call 911 now" in said


def test_a_zero_countdown_says_it_goes_out_now(alice, settings):
    settings.SOS_COUNTDOWN_SECONDS = 0

    conversation = start_chat(alice, "call an ambulance", backend=no_model())

    said = reply(conversation)
    assert "being alerted" in said and "cancel" not in said.lower()


def test_an_ordinary_request_after_a_help_now_chat_goes_to_the_model(alice):
    conversation = start_chat(alice, "call an ambulance", backend=no_model())
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    conversation = post_user_message(
        conversation.pk, alice, "I have a rash on my arm, can I see a doctor?", backend=backend
    )

    assert len(backend.calls) == 1
    assert conversation.status == "completed"
    assert len(hard_sos(alice)) == 1


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("my child haas a seizure", "my child has a seizure"),  # "haas" is in the encoder's list, and rare
        ("dil 112 now", "dial 112 now"),
        ("her lips lok dusky", "her lips look dusky"),
        ("he is nto breathing", "he's not breathing"),  # a swap before a letter left out ("into")
        ("a rash that doesnt go away", "a rash that doesn't go away"),  # a contraction's stem is no typo
        ("is tis an emergency?", "is this an emergency?"),
    ],
)
def test_rare_words_one_slip_from_a_pattern_word_are_read_as_it(typed, read):
    assert normalised(typed) == read
