#!/usr/bin/env python3
"""build_labels.py — writes labels.jsonl, the labelled set of `keynode judge-audit`, from the table below.

Every label in the table was decided by a keynode engineer reading the item (README.md, "How the labels
were decided"); nothing here runs a judge. The script only takes each rule, its query parameter and its
URL from the published Mind2Web-Live file (so the rule text is exactly as published, misspellings and
stray spaces included), puts each value into that URL's parameter the way the site encodes it, and writes
one JSON line per item.

usage: build_labels.py SHARED_DIR/data/mind2web-live > labels.jsonl
"""
import json
import sys
import urllib.parse

# (file, task index, the rule's text after "Decide whether ", items): items are (value, label, note).
# url key nodes: value is the query parameter's value as the agent searched it; element_value: the text typed
# or chosen. Labels: 1 the key node should count as reached, 0 it should not.
E = 'example_130.json'
T = 'mind2web-live_test_20241024.json'
TABLE = [
    (E, 'W7KXP7WT9P2IcIHkrM2bl', 'are searching for Jaguar XF', [
        ('Jaguar XF', 1, 'the reference'), ('jaguar xf', 1, 'case'), ('used jaguar xf', 1, 'narrowed as the task says (used)'),
        ('Jaguar XE', 0, 'near miss: another model'), ('Jaguar', 0, 'broader: the model is missing'),
        ('Jaguar F-Pace', 0, 'another model')]),
    (E, 'TpT9z9DSgXapCMB2ORulX', 'are searching for wall art', [
        ('wall art', 1, 'the reference'), ('Wall Art', 1, 'case'), ('canvas wall art', 1, 'narrowed: a kind of wall art'),
        ('wall clock', 0, 'related, different item'), ('art supplies', 0, 'different item')]),
    (E, 'gDmEXIumjy6tQOrO0VzNS', 'are searching for south african history podcast', [
        ('south african history podcast', 1, 'the reference'), ('South Africa history podcast', 1, 'country name for the adjective'),
        ('history of south africa podcast', 1, 'paraphrase'), ('south african music', 0, 'different thing'),
        ('african history podcast', 0, 'broader: "south" missing'), ('south american history podcast', 0, 'near miss: another continent')]),
    (E, 'DKVD-ophgCKtDzTA6T65R', 'are searching for iPhone 12 Pro', [
        ('iphone 12 pro', 1, 'case'), ('Apple iPhone 12 Pro', 1, 'brand added'), ('iphone 12 pro 128gb blue', 1, 'narrowed as the task says'),
        ('iphone 12 pro max', 0, 'another variant of the line'), ('iphone 13 pro', 0, 'near miss: another number'),
        ('iphone 12 pro case', 0, 'accessory'), ('iphone 12', 0, 'broader: "pro" missing')]),
    (E, 'EtBAYvBAHdCKB2_xJWNDa', 'are searching for Nintendo Switch', [
        ('Nintendo Switch', 1, 'the reference'), ('nintendo switch console', 1, 'the product type spelled out'),
        ('Nintendo Switch Lite', 0, 'another variant of the line'), ('Nintendo Switch games', 0, 'related, different item'),
        ('nintendo 3ds', 0, 'another console')]),
    (E, '3EYfZekKAm_7OW8tkf5J_', 'are searching for Xbox Wireless controller', [
        ('xbox wireless controller', 1, 'case'), ('Xbox Wireless Controller - Carbon Black', 1, 'narrowed: a colour'),
        ('xbox controller wireless', 1, 'word order'), ('xbox wireless headset', 0, 'another accessory'),
        ('playstation wireless controller', 0, 'another console'), ('xbox controller charger', 0, 'accessory of the target')]),
    (E, 'pIWJqqtx19A-qKymEDRYB', 'are searching for sonoma bath towels', [
        ('sonoma bath towels', 1, 'the reference'), ('Sonoma Goods For Life bath towel', 1, "the brand's full name, singular"),
        ('sonoma beach towels', 0, 'near miss: another towel'), ('bath towels', 0, 'broader: the brand is missing'),
        ('sonoma hand towels', 0, 'near miss: another towel')]),
    (E, 'RyhHhSmdLH_couxp6jwEp', 'are searching for empire state building', [
        ('Empire State Building', 1, 'case'), ('empire state bldg', 1, 'common abbreviation'),
        ('Empire State Building, New York, NY', 1, 'city and state added'), ('Empire State Plaza', 0, 'another place (Albany)'),
        ('Chrysler Building', 0, 'another landmark')]),
    (E, 'RyhHhSmdLH_couxp6jwEp', 'are searching for little Caribbean', [
        ('Little Caribbean', 1, 'case'), ('Little Caribbean, Brooklyn', 1, 'borough added'), ('Caribbean', 0, 'broader'),
        ('Little Italy', 0, 'near miss: another neighbourhood'), ('Little Haiti', 0, 'another neighbourhood')]),
    (E, 'ON4UUjUE-e8eM4zJgCcXR', 'is searching for Nintendo Switch', [
        ('nintendo switch used', 1, 'narrowed as the task says'), ('Nintendo Switch', 1, 'the reference'),
        ('nintendo switch joy-con', 0, 'accessory'), ('Wii U', 0, 'another console')]),
    (E, 'iDXwYzZqvTLA6KFitaOnT', 'is searching for cafes', [
        ('cafes', 1, 'the reference'), ('Cafe', 1, 'singular, case'), ('coffee shops', 1, 'synonym'),
        ('dog friendly cafes', 1, 'narrowed as the task says'), ('bars', 0, 'another kind of place'),
        ('bakeries', 0, 'related, different kind of place')]),
    (E, 'gHnk08cXzPxHikXZ1jJMS', 'is searching for West Hollywood', [
        ('West Hollywood', 1, 'the reference'), ('West Hollywood, CA', 1, 'state added'), ('Hollywood', 0, 'another place'),
        ('North Hollywood', 0, 'near miss: another place containing the name'), ('Beverly Hills', 0, 'a neighbouring city')]),
    (E, 'TE18EGhjtZzKiT8NFAAEt', 'is searching for rogaine', [
        ('rogaine', 1, 'the reference'), ('Rogaine foam', 1, 'narrowed: a form of the product'),
        ('propecia', 0, 'another hair-loss drug'), ('biotin', 0, 'another product')]),
    (E, 'UoI3S1NseUPgO195KNgml', "are searching for men's running shoes", [
        ("men's running shoes", 1, 'the reference'), ('mens running shoes', 1, 'no apostrophe'),
        ('running shoes for men', 1, 'paraphrase'), ('mens running shoes black size 7 extra wide', 1, 'narrowed as the task says'),
        ("women's running shoes", 0, 'another gender'), ("men's walking shoes", 0, 'near miss: another shoe'),
        ("men's running shorts", 0, 'near miss: another garment')]),
    (E, '8oiyOS5v16Lpb_jifxuCx', 'is searchign for wall mirrors', [
        ('wall mirrors', 1, 'the reference'), ('wall mirror', 1, 'singular'), ('wall shelves', 0, 'another item'),
        ('floor mirror', 0, 'near miss: another kind of mirror')]),
    (E, '3XFTKKOEg8Cm2cEnqDF47', 'Whether is searching for Washington state', [
        ('Washington State', 1, 'case'), ('WA', 1, "the state's abbreviation"), ('Washington, DC', 0, 'another place'),
        ('Oregon', 0, 'a neighbouring state')]),
    (E, '29LVD9B4mMWD6tACTcUxz', 'is searching for a pasta restaurant', [
        ('pasta', 1, 'the site makes "restaurant" implicit'), ('pasta restaurant', 1, 'the reference without the article'),
        ('pizza', 0, 'another food'), ('sushi', 0, 'another cuisine')]),
    (E, '4Eeod20yp8c7xLKgwrt3V', 'are searching for wireless printer', [
        ('wireless printer', 1, 'the reference'), ('wireless printers', 1, 'plural'), ('wifi printer', 1, 'paraphrase'),
        ('wireless printer ink', 0, 'consumable of the target'), ('wireless mouse', 0, 'another product'),
        ('laser printer', 0, '"wireless" missing, another kind')]),
    (E, 'fRp4AJThGn5cxMsD9L0dj', 'are searching for Spring, texas', [
        ('Spring, TX', 1, 'state abbreviated (the published URL)'), ('Spring Texas', 1, 'no comma'),
        ('spring, tx 77373', 1, 'zip added'), ('Spring Valley, TX', 0, 'another place containing the name'),
        ('Houston, TX', 0, 'a neighbouring city')]),
    (E, 'SeWmxjveoPc9RGHOF3j5z', 'are searching for Miami Airport', [
        ('Miami International Airport', 1, 'full name'), ('MIA', 1, "the airport's code"), ('Miami Airport (MIA)', 1, 'code added'),
        ('Miami', 0, 'the city, not the airport'), ('Fort Lauderdale Airport', 0, 'another airport'),
        ('Miami Beach', 0, 'another place')]),
    (E, 'SeWmxjveoPc9RGHOF3j5z', 'are searching for Miami', [
        ('Miami', 1, 'the reference'), ('Miami, FL', 1, 'state added'), ('Miami, Florida, United States', 1, 'state and country added'),
        ('Miami Beach', 0, 'another place containing the name'), ('Miami, OK', 0, 'another Miami (Oklahoma)'),
        ('Orlando, FL', 0, 'another city')]),
    (E, 'NNHA-KGGJkKQR3WZT1GhY', 'are searching for Chicago', [
        ('Chicago', 1, 'the reference'), ('Chicago, IL', 1, 'state added'), ('chicago il', 1, 'case, no comma'),
        ('Chicago Heights', 0, 'another place containing the name'), ('Chicago Ridge, IL', 0, 'another place containing the name'),
        ('Evanston, IL', 0, 'a neighbouring city')]),
    (E, 'wiqkYolPL-j6RRg38yaoj', 'are searching for mexican restaurants', [
        ('Mexican Restaurants', 1, 'case'), ('mexican food', 1, 'the site makes "restaurants" implicit'),
        ('Mexican restaurant', 1, 'singular'), ('Italian restaurants', 0, 'another cuisine'),
        ('mexican grocery store', 0, 'another kind of place')]),
    (E, 'wiqkYolPL-j6RRg38yaoj', 'are searching for Concord', [
        ('Concord, CA', 1, 'the state the task names'), ('Concord', 1, 'the reference'), ('Concord, CA 94520', 1, 'zip added'),
        ('Walnut Creek, CA', 0, 'a neighbouring city')]),
    (E, 'acCvItQT2PQxhAEaZpw4i', 'are searching for pedicure salon', [
        ('pedicure salon', 1, 'the reference'), ('pedicure', 1, 'the site makes "salon" implicit'),
        ('hair salon', 0, 'another salon'), ('pedicure chair', 0, 'a product, not a salon')]),
    (E, 'acCvItQT2PQxhAEaZpw4i', 'are searching for New York', [
        ('New York', 1, 'the reference'), ('New York, NY', 1, 'state added'), ('NYC', 1, 'common abbreviation'),
        ('Newark, NJ', 0, 'a neighbouring city'), ('York, PA', 0, 'another place containing the name')]),
    (E, 'CGMIrWw9PUbA-_-eobsE4', 'are searching for cough medicine', [
        ('cough medicine', 1, 'the reference'), ('cough syrup', 1, 'paraphrase'), ('cough medicines', 1, 'plural'),
        ('allergy medicine', 0, 'another medicine'), ('sore throat spray', 0, 'another remedy')]),
    (E, 'hWz3-bu-hGsrtoojpBZCU', 'are searching for Electricians', [
        ('electricians', 1, 'case'), ('Electrician', 1, 'singular'), ('electrical contractors', 1, 'synonym'),
        ('plumbers', 0, 'another trade'), ('electronics repair', 0, 'another service')]),
    (E, 'hWz3-bu-hGsrtoojpBZCU', 'are searching for Westminster,CA', [
        ('Westminster, CA', 1, 'space after the comma'), ('Westminster, California', 1, 'state spelled out'),
        ('westminster ca 92683', 1, 'zip added'), ('Westminster, CO', 0, 'near miss: another state'),
        ('Garden Grove, CA', 0, 'a neighbouring city'), ('Honolulu, HI', 0, 'another city')]),
    (E, 'ODAiMd9KUjC7Jv7eodHqp', 'are searching for a pack of toilet paper', [
        ('a pack of toilet paper', 1, 'the reference'), ('toilet paper', 1, 'the quantity words dropped'),
        ('toilet paper 12 pack', 1, 'narrowed: a pack size'), ('paper towels', 0, 'another paper product'),
        ('toilet paper holder', 0, 'accessory')]),
    (E, 'ODAiMd9KUjC7Jv7eodHqp', 'are searching for a bottle of laundry detergent', [
        ('laundry detergent', 1, 'the quantity words dropped'), ('a bottle of laundry detergent', 1, 'the reference'),
        ('liquid laundry detergent', 1, 'narrowed: what comes in a bottle'), ('dish detergent', 0, 'another detergent'),
        ('fabric softener', 0, 'another laundry product')]),
    (E, 'gw8QYJVt8VkMCuh8WzW5Z', 'the place is Honolulu, HI', [
        ('Honolulu, HI', 1, 'the reference'), ('Honolulu', 1, 'state dropped: one Honolulu'), ('honolulu hawaii', 1, 'state spelled out'),
        ('Hilo, HI', 0, 'another city in the state'), ('Hawaii', 0, 'broader: the state'), ('Kailua, HI', 0, 'another city in the state')]),
    (E, 'fZxEueSga2SBJ__Fh8Lwn', 'are searching for washing machine', [
        ('washing machine', 1, 'the reference'), ('washing machines', 1, 'plural'), ('front load washing machine', 1, 'narrowed: a kind'),
        ('washing machine parts', 0, 'parts of the target'), ('dishwasher', 0, 'another appliance'), ('dryer', 0, 'another appliance')]),
    (E, 'rfNemY0eiTaMuUVmMtE1f', 'are searching for Ricky Kej', [
        ('Ricky Kej', 1, 'the reference'), ('ricky kej', 1, 'case'), ('Ricky Kej music', 1, 'boilerplate added'),
        ('Ricky Martin', 0, 'near miss: another artist'), ('Ricky', 0, 'broader: surname missing')]),
    (E, 'H16cZ1rGpDK_X3GBL1Csh', 'is searching for Washington, D.C. or ZDC', [
        ('Washington', 1, 'what the published URL searched'), ('Washington, DC', 1, 'one of the two'), ('ZDC', 1, 'the other one'),
        ('Seattle', 0, 'another city'), ('Wilmington', 0, 'near miss: a similar name')]),
    (E, 'H16cZ1rGpDK_X3GBL1Csh', 'is searching for New York or ZNY', [
        ('New York', 1, 'one of the two'), ('ZNY', 1, 'the other one'), ('New York, NY', 1, 'state added'),
        ('Boston', 0, 'another city'), ('New Orleans', 0, 'near miss: starts the same')]),
    (E, '6k0v1LbqRssEvjiwwvWDn', 'is searching for rock', [
        ('rock', 1, 'the reference'), ('Rock', 1, 'case'), ('rock playlist', 1, 'narrowed as the task says'),
        ('rock climbing', 0, 'another sense of the word'), ('pop', 0, 'another genre')]),
    (E, '1qkDSDVzX9LZhx6VQL_Yd', 'is searching for stroller', [
        ('stroller', 1, 'the reference'), ('strollers', 1, 'plural'), ('baby stroller', 1, 'the obvious qualifier'),
        ('stroller fan', 0, 'accessory'), ('car seat', 0, 'another baby product')]),
    (E, '1Te22cad3xH_VsFvczajN', 'is searching for California city', [
        ('California City, CA', 1, 'the published URL'), ('California City', 1, 'case'), ('California', 0, 'the state, not the city'),
        ('Culver City, CA', 0, 'another city'), ('Carson City, NV', 0, 'another city')]),
    (E, 'ZpkB1yoN5N36h-JPtwEtv', 'are searching for laptops ', [
        ('laptops', 1, 'the reference'), ('laptop', 1, 'singular'), ('notebook computer', 1, 'synonym'),
        ('new laptops', 1, 'narrowed as the task says'), ('laptop bag', 0, 'accessory'), ('laptop charger', 0, 'accessory'),
        ('tablets', 0, 'another product')]),
    (E, 'NF6hAjWkHaqzdiab5ygr3', 'are searching for New York,United States,100', [
        ('New York, United States, 100', 1, 'spaces after the commas'), ('New Jersey, United States', 0, 'another state'),
        ('York, United Kingdom', 0, 'another place containing the name')]),
    (T, 7, 'the content means gift card', [
        ('Gift Card', 1, 'case'), ('e-Gift Card', 1, 'the electronic kind the task asks for'), ('UA eGift Card', 1, "the site's name for it"),
        ('Gift Box', 0, 'another gift item'), ('Credit Card', 0, 'near miss: one word different'), ('Gift Receipt', 0, 'another gift item')]),
    (T, 15, 'are searching for mens winter coat', [
        ('mens winter coat', 1, 'the reference'), ("men's winter coats", 1, 'apostrophe, plural'),
        ('mens winter coat large', 1, 'narrowed as the task says'), ('womens winter coat', 0, 'another gender'),
        ('mens winter boots', 0, 'another item'), ('mens coat', 0, 'broader: "winter" missing')]),
    (T, 24, 'are searching for wireless headphones', [
        ('wireless headphones', 1, 'the reference'), ('bluetooth headphones', 1, 'paraphrase'),
        ('wireless noise cancelling headphones', 1, 'narrowed as the task says'), ('wired headphones', 0, 'the opposite'),
        ('headphone stand', 0, 'accessory'), ('wireless speaker', 0, 'another product')]),
    (T, 25, 'are searching for playstation 5 digital edition', [
        ('playstation 5 digital edition', 1, 'the reference'), ('PS5 Digital Edition', 1, 'common abbreviation'),
        ('ps5 digital', 1, '"edition" implied'), ('playstation 5', 0, 'broader: the edition is missing'),
        ('PS5 disc edition', 0, 'near miss: the other edition'), ('playstation 5 digital edition controller', 0, 'accessory')]),
    (T, 29, 'is searching for las vegas', [
        ('Las Vegas', 1, 'case'), ('Las Vegas, NV', 1, 'state added'), ('LAS', 1, "the city's airport code, on a flight map"),
        ('Las Vegas, NV, US (LAS)', 1, 'the form airline sites show'), ('North Las Vegas', 0, 'another place containing the name'),
        ('Los Angeles', 0, 'another city'), ('Reno, NV', 0, 'another city in the state')]),
    (T, 32, 'is searching for 32" curved monitor', [
        ('32" curved monitor', 1, 'the reference'), ('32 inch curved monitor', 1, 'unit spelled out'),
        ('curved monitor 32in', 1, 'order, unit abbreviated'), ('27 inch curved monitor', 0, 'near miss: another size'),
        ('32" monitor', 0, 'broader: "curved" missing'), ('32 inch curved tv', 0, 'another product')]),
    (T, 36, 'are searching for Central New York', [
        ('Central New York, NY', 1, 'the published URL'), ('Central New York', 1, 'the reference'),
        ('Central Park, New York', 0, 'another place with every word'), ('New York, NY', 0, 'another region (the city)'),
        ('Western New York', 0, 'near miss: another region')]),
    (T, 37, 'are searching for external HD', [
        ('external HD', 1, 'the reference'), ('external hard drive', 1, 'abbreviation spelled out'), ('external HDD', 1, 'common abbreviation'),
        ('xbox one external hard drive', 1, 'narrowed as the task says'), ('internal hard drive', 0, 'the opposite'),
        ('hdmi cable', 0, 'another product')]),
    (T, 42, 'are searching for San Diego', [
        ('San Diego, CA', 1, 'state added'), ('San Diego', 1, 'the reference'), ('San Dimas, CA', 0, 'near miss: a similar name'),
        ('Los Angeles, CA', 0, 'another city')]),
    (T, 42, 'are searching for hair salon', [
        ('hair salon', 1, 'the reference'), ('hair salons', 1, 'plural'), ('hairdresser', 1, 'synonym'),
        ('nail salon', 0, 'near miss: another salon'), ('hair removal', 0, 'another service')]),
    (T, 45, 'are describing best wishes', [
        ('Best Wishes', 1, 'case'), ('Best wishes!', 1, 'punctuation'), ('Best wishes from James', 1, 'contains the message'),
        ('Happy Birthday', 0, 'another message'), ('Best regards', 0, 'near miss: another closing')]),
    (T, 46, 'are searching for front load washing machine', [
        ('front load washing machine', 1, 'the reference'), ('front loading washer', 1, 'paraphrase'),
        ('front-load washing machines', 1, 'hyphen, plural'), ('top load washing machine', 0, 'near miss: the other kind'),
        ('front load dryer', 0, 'another appliance'), ('washing machine', 0, 'broader: "front load" missing')]),
    (T, 48, 'are searching for coffee maker', [
        ('coffee maker', 1, 'the reference'), ('coffee makers', 1, 'plural'), ('coffeemaker', 1, 'joined spelling'),
        ('coffee machine', 1, 'synonym'), ('coffee maker filters', 0, 'consumable'), ('coffee grinder', 0, 'another appliance'),
        ('tea kettle', 0, 'another appliance')]),
    (T, 49, 'is searching for spiderman toy', [
        ('spiderman toys', 1, 'plural (the published URL)'), ('spider-man toy', 1, 'hyphen'), ('batman toys', 0, 'another character'),
        ('spiderman costume', 0, 'another item'), ('spiderman', 0, 'broader: "toy" missing')]),
    (T, 57, 'are searching for East Boston Ferry', [
        ('East Boston Ferry', 1, 'the reference'), ('east boston ferry', 1, 'case'), ('East Boston', 0, 'broader: the ferry is missing'),
        ('Charlestown Ferry', 0, 'another ferry'), ('Hingham ferry', 0, 'another ferry')]),
    (T, 61, 'the content is to send brochure', [
        ('Send Brochure', 1, 'case'), ('Please send me a brochure.', 1, 'a sentence with the meaning'), ('send brochure', 1, 'the reference'),
        ('Request a demo', 0, 'another request'), ('Please do not send brochures', 0, 'negated'), ('Send invoice', 0, 'near miss: another document')]),
    (T, 67, 'are searching for pop workout mix', [
        ('pop workout mix', 1, 'the reference'), ('Pop Workout Mix', 1, 'case'), ('pop workout mix 2024', 1, 'narrowed: a year'),
        ('rock workout mix', 0, 'near miss: another genre'), ('pop mix', 0, 'broader: "workout" missing')]),
    (T, 70, 'are searching for Cantonese food', [
        ('Cantonese food', 1, 'the reference'), ('cantonese restaurants', 1, 'the site is about restaurants'), ('Cantonese', 1, '"food" implied'),
        ('Szechuan food', 0, 'another cuisine'), ('Chinese food', 0, 'broader: Cantonese is one Chinese cuisine')]),
    (T, 70, 'are searching for Chicago, IL', [
        ('Chicago, IL', 1, 'the reference'), ('Chicago', 1, 'state dropped'), ('Chicago, Illinois', 1, 'state spelled out'),
        ('Chicago, IL 60601', 1, 'zip added'), ('Chicago Heights, IL', 0, 'another place containing the name'),
        ('Springfield, IL', 0, 'another city in the state')]),
    (T, 72, 'are searching for bluetooth vertical mouse', [
        ('bluetooth vertical mouse', 1, 'the reference'), ('vertical mouse bluetooth', 1, 'word order'),
        ('bluetooth vertical mice', 1, 'plural'), ('bluetooth mouse', 0, 'broader: "vertical" missing'),
        ('vertical mouse pad', 0, 'accessory')]),
    (T, 75, 'are searching for swivel vacuum', [
        ('swivel vacuum', 1, 'the reference'), ('Swivel Vacuums', 1, 'case, plural'), ('robot vacuum', 0, 'another kind of vacuum'),
        ('swivel chair', 0, 'another product'), ('vacuum bags', 0, 'consumable')]),
    (T, 77, 'is searching for trending playlists', [
        ('trending playlists', 1, 'the reference'), ('trending playlist', 1, 'singular'), ('chill playlists', 0, 'other playlists'),
        ('trending tracks', 0, 'tracks, not playlists')]),
]

# Answer key nodes: the published files have none with a semantic rule, so these rules are ours, written in
# the published style from a published task's intent (the source says which task). The values are answers an
# agent might give; their facts were not checked: the label says whether the answer is what the rule asks for.
ANSWERS = [
    (E, 'TE18EGhjtZzKiT8NFAAEt', 'Decide whether the content is about side effects of rogaine', [
        ('Common side effects of Rogaine include scalp irritation, itching, dryness and unwanted facial hair growth.', 1, 'answers it'),
        ('Side effects: itching or redness of the scalp, unwanted hair growth, dizziness.', 1, 'answers it, shorter'),
        ("Rogaine Men's 5% Minoxidil Foam, 3 month supply, $46.99", 0, 'the product and price, not side effects'),
        ('Side effects of Propecia (finasteride) can include decreased libido.', 0, 'another drug'),
        ('I could not find any information about Rogaine on CVS.', 0, 'no answer')]),
    (T, 0, 'Decide whether the answer is the store hours of a GameStop', [
        ('The GameStop at 6801 Hollywood Blvd is open 10am-8pm Monday to Saturday and 11am-6pm on Sunday.', 1, 'hours given'),
        ('GameStop Hollywood & Highland hours: Mon-Sat 10:00 AM - 8:00 PM, Sun 11:00 AM - 6:00 PM', 1, 'hours given'),
        ('The closest GameStop is at 6801 Hollywood Blvd, Los Angeles, CA 90028.', 0, 'location only, no hours'),
        ('The Best Buy on Sunset Blvd is open 10am-9pm every day.', 0, 'another store')]),
    (E, 'WXkY6peQb2NDE6VKrNQkd', 'Decide whether the content is about the complexity rating of Frosthaven', [
        ('Frosthaven has a complexity (weight) rating of 3.88 out of 5 on BoardGameGeek.', 1, 'answers it'),
        ("Frosthaven's weight is 3.9 / 5.", 1, "BoardGameGeek's word for complexity"),
        ('Frosthaven is rated 8.7 on BoardGameGeek.', 0, 'the average rating, not the complexity'),
        ('Gloomhaven has a complexity rating of 3.9 / 5.', 0, 'another game')]),
    (E, 'rfNemY0eiTaMuUVmMtE1f', 'Decide whether the content is about a Ricky Kej track', [
        ("I shared the Ricky Kej track 'Shanti Samsara' (4:12), uploaded this year.", 1, 'answers it'),
        ("Found and shared 'Winds of Samsara' by Ricky Kej.", 1, 'answers it'),
        ('I shared a track by A. R. Rahman.', 0, 'another artist'),
        ('There is no Ricky Kej track shorter than 10 minutes.', 0, 'no track found')]),
    (E, '4Eeod20yp8c7xLKgwrt3V', 'Decide whether the content is about two wireless printers', [
        ('HP OfficeJet Pro 9015e (4.5 stars) vs Canon PIXMA TR8620 (4.3 stars): the HP prints faster, the Canon is cheaper.', 1,
         'two wireless printers compared'),
        ('Compared Brother HL-L2350DW and HP LaserJet M209dw, both wireless and rated above 4 stars.', 1, 'two printers compared'),
        ('The HP OfficeJet Pro 9015e is rated 4.5 stars.', 0, 'one printer, not two'),
        ('Logitech MX Master 3 vs Logitech M720: both wireless mice rated 4.7 stars.', 0, 'mice, not printers')]),
]


def with_param(url, key, value):
    """url with query parameter key set to value, encoded as the site encodes it (%20 or +)."""
    parts = urllib.parse.urlsplit(url)
    pairs = parts.query.split('&') if parts.query else []
    style_pct = any(p.startswith(key + '=') and '%20' in p for p in pairs)
    enc = urllib.parse.quote(value, safe='') if style_pct else urllib.parse.quote_plus(value)
    out, done = [], False
    for p in pairs:
        if p.split('=', 1)[0] == key and not done:
            out.append(key + '=' + enc)
            done = True
        else:
            out.append(p)
    if not done:
        out.append(key + '=' + enc)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, '&'.join(out), parts.fragment))


def find(data, index, phrase):
    for t in data:
        if str(t['index']) != str(index):
            continue
        for i, e in enumerate(t['evaluation']):
            ref = e['content']['reference_answer']
            if 'semantic' in e['match_function_name'] and ref in ('Decide whether ' + phrase, 'Decide ' + phrase):
                return t, i, e
    sys.exit(f'no semantic key node "Decide {phrase}" in task {index}')


def main():
    src = sys.argv[1]
    files = {f: json.load(open(f'{src}/{f}')) for f in (E, T)}
    n = 0
    for f, index, phrase, items in TABLE:
        t, k, e = find(files[f], index, phrase)
        c = e['content']
        url = e['match_function_name'] == 'url_semantic_match'
        for value, label, note in items:
            item = {'rule': c['reference_answer'], 'target': 'url' if url else 'element_value'}
            if url:
                item['key'] = c['key']
                item['value'] = with_param(c['url'], c['key'], value)
            else:
                item['value'] = value
            item['label'] = bool(label)
            item['note'] = note
            item['source'] = f'{f} task {t["index"]} k{k + 1} ({e["match_function_name"]})'
            print(json.dumps(item, ensure_ascii=False))
            n += 1
    for f, index, rule, items in ANSWERS:
        if not any(str(t['index']) == str(index) for t in files[f]):
            sys.exit(f'no task {index} in {f}')
        for value, label, note in items:
            print(json.dumps({'rule': rule, 'target': 'answer', 'value': value, 'label': bool(label), 'note': note,
                              'source': f'ours, from the intent of {f} task {index}'}, ensure_ascii=False))
            n += 1
    print(f'{n} items', file=sys.stderr)


if __name__ == '__main__':
    main()
