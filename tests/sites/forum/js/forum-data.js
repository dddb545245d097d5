/* forum-data.js — the posts the forum starts with (a real forum would load them from its API).
 * Dates are ISO strings; the listing shows the newest first. */
window.FORUM_SEED = [
	{ id: 1, title: 'Welcome to the Trailhead community', author: 'moderator', category: 'general',
	  created: '2025-09-01T09:00:00Z',
	  body: ['Hello and welcome! This is the place to ask about gear, share trip reports and learn new skills.',
	         'Please be kind, stay on topic, and search before posting a question that might already have an answer.'],
	  replies: [
		{ author: 'fellwalker', created: '2025-09-01T10:12:00Z', body: 'Thanks for setting this up!' },
		{ author: 'ana_on_trail', created: '2025-09-02T08:40:00Z', body: 'Glad to be here. Lurked for years.' }
	  ] },
	{ id: 2, title: 'Best budget rain jacket?', author: 'damp_dave', category: 'gear',
	  created: '2025-10-04T18:22:00Z',
	  body: ['My old jacket finally gave up. Looking for something under $150 that actually keeps the rain out on a full day in the hills.'],
	  replies: [
		{ author: 'fellwalker', created: '2025-10-04T19:02:00Z', body: 'Look for a 2.5-layer shell with pit zips. Avoid anything that only says "water resistant".' },
		{ author: 'ana_on_trail', created: '2025-10-05T07:30:00Z', body: 'Re-proof whatever you buy every season, it makes a huge difference.' },
		{ author: 'gearhead42', created: '2025-10-05T12:11:00Z', body: 'Sales at the end of summer are your friend.' }
	  ] },
	{ id: 3, title: 'Winter camping stove advice', author: 'frostbite_fran', category: 'gear',
	  created: '2025-11-02T20:15:00Z',
	  body: ['Planning my first winter overnight. Canister or liquid fuel stove when it gets below freezing?',
	         'I will mostly be melting snow for water, so efficiency matters.'],
	  replies: [
		{ author: 'gearhead42', created: '2025-11-02T21:00:00Z', body: 'Liquid fuel, no question, if you are melting snow.' },
		{ author: 'ana_on_trail', created: '2025-11-03T08:15:00Z', body: 'Inverted canister stoves work well down to about -10 °C.' },
		{ author: 'fellwalker', created: '2025-11-03T09:47:00Z', body: 'Keep the canister in your sleeping bag overnight.' },
		{ author: 'frostbite_fran', created: '2025-11-03T18:05:00Z', body: 'Thanks all, going with liquid fuel.' }
	  ] },
	{ id: 4, title: 'Trip report: Cairngorms in October', author: 'ana_on_trail', category: 'trips',
	  created: '2025-10-20T16:45:00Z',
	  body: ['Three days, two wild camps, one very windy plateau. Photos and route notes below.',
	         'Day two was the highlight: clear skies over Loch Avon and not a soul around.'],
	  replies: [
		{ author: 'damp_dave', created: '2025-10-21T07:55:00Z', body: 'Jealous. How were the river crossings?' }
	  ] },
	{ id: 5, title: 'Ultralight tent recommendations', author: 'grams_matter', category: 'gear',
	  created: '2025-10-28T11:05:00Z',
	  body: ['Trying to get my base weight under 7 kg. What is the lightest two-person tent you would still trust in wind?'],
	  replies: [
		{ author: 'gearhead42', created: '2025-10-28T12:30:00Z', body: 'Trekking-pole tents are the way to go if you already carry poles.' },
		{ author: 'fellwalker', created: '2025-10-29T09:10:00Z', body: 'Pitch it in the garden in a storm before you trust it on a ridge.' }
	  ] },
	{ id: 6, title: 'How do you navigate without a phone?', author: 'compass_carl', category: 'skills',
	  created: '2025-09-15T14:30:00Z',
	  body: ['My phone died on a ridge last month and I realised how much I rely on it. Where do I start with map and compass?'],
	  replies: [
		{ author: 'fellwalker', created: '2025-09-15T15:00:00Z', body: 'Take a navigation course. One weekend changes everything.' },
		{ author: 'ana_on_trail', created: '2025-09-15T17:20:00Z', body: 'Practise on easy routes you already know.' },
		{ author: 'moderator', created: '2025-09-16T08:00:00Z', body: 'There is a skills meetup next month, details in the events thread.' }
	  ] }
];
