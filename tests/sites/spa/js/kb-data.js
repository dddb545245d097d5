/* kb-data.js — help-centre topics and articles. */
window.KB = {
	topics: [
		{ id: 'orders', title: 'Orders & delivery', summary: 'Tracking, delivery options, changing an order.' },
		{ id: 'returns', title: 'Returns & refunds', summary: 'Sending things back and getting your money back.' },
		{ id: 'account', title: 'Your account', summary: 'Passwords, addresses, newsletters.' }
	],
	articles: [
		{ id: 10, topic: 'returns', title: 'How to return an item',
		  body: ['You can return unused items within 60 days. Start a return from your order page and print the label.',
		         'Pack the item in its original packaging and drop it at any post office.'] },
		{ id: 11, topic: 'returns', title: 'When will I get my refund?',
		  body: ['Refunds are issued within 5 business days of the return reaching our warehouse.',
		         'The money goes back to the card you paid with; your bank may take a few more days.'] },
		{ id: 12, topic: 'returns', title: 'Refunds for damaged or faulty items',
		  body: ['If something arrives damaged or develops a fault, report it within 30 days of delivery and we will refund it in full, including delivery.',
		         'Send us a photo of the damage from your order page. You do not need to send faulty items back unless we ask.'] },
		{ id: 13, topic: 'returns', title: 'Exchanging for a different size',
		  body: ['Exchanges are free. Start a return, choose "exchange", and pick the new size; we send it as soon as the original is scanned.'] },
		{ id: 14, topic: 'orders', title: 'Tracking your order',
		  body: ['Every shipped order has a tracking link in the dispatch email and on your order page.'] },
		{ id: 15, topic: 'orders', title: 'Changing your delivery address',
		  body: ['You can change the address until the order is packed, usually within two hours of ordering.'] },
		{ id: 16, topic: 'orders', title: 'Delivery options and costs',
		  body: ['Standard delivery takes 3 to 5 days and costs $5.00 (free over $100). Express next-day delivery costs $15.00.'] },
		{ id: 17, topic: 'account', title: 'Resetting your password',
		  body: ['Choose "Forgot password" on the sign-in page and follow the link we email you. Links expire after one hour.'] },
		{ id: 18, topic: 'account', title: 'Unsubscribing from the newsletter',
		  body: ['Every newsletter has an unsubscribe link at the bottom. You can also change the frequency in your account.'] }
	]
};
