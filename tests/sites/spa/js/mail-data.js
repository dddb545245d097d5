/* mail-data.js — the mailbox Pinemail starts with (a real client would fetch it). Inbox order is
 * newest first, as displayed. */
window.MAIL_SEED = {
	me: { name: 'Sam Rivers', email: 'sam@pinemail.test' },
	inbox: [
		{ id: 1, from: 'Trailhead Outfitters', address: 'orders@trailhead.test', subject: 'Your order has shipped',
		  date: '09:14', starred: false,
		  body: ['Good news: your order KN-4417 is on its way.', 'Track it any time from your account page.'] },
		{ id: 2, from: 'Alan Turing', address: 'alan@bletchley.test', subject: 'Lunch on Friday?',
		  date: 'Yesterday', starred: true,
		  body: ['Are you free for lunch on Friday? The new place by the station does a decent curry.', 'Alan'] },
		{ id: 4, from: 'Grace Hopper', address: 'grace@navy.test', subject: 'Q3 report review',
		  date: 'Mon', starred: false,
		  body: ['Hi Sam,', 'Could we go through the Q3 report on Thursday at 10:30? I have booked Room 4B on the second floor.',
		         'Bring the revised cost figures if you can.', 'Grace'] },
		{ id: 3, from: 'Katherine Johnson', address: 'katherine@langley.test', subject: 'Weekly team update',
		  date: 'Sun', starred: false,
		  body: ['Highlights this week: the trajectory model is validated and the release moves to next Tuesday.'] },
		{ id: 5, from: 'Trailhead Community', address: 'noreply@forum.trailhead.test', subject: 'New replies to your post',
		  date: 'Oct 28', starred: false,
		  body: ['Your post "Ultralight tent recommendations" has 2 new replies.'] }
	],
	sent: [
		{ id: 6, to: 'Alan Turing', address: 'alan@bletchley.test', subject: 'Re: Lunch on Friday?', date: 'Yesterday',
		  body: ['Friday works. 12:30 at the station?'] }
	]
};
