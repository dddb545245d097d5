/* websocket_hook.c — the script that puts WebSocket.prototype.send under the monitor (websockets.h).
 *
 * It runs in the main world before any page script (a page or frame: Page.addScriptToEvaluateOnNewDocument
 * with runImmediately; a dedicated worker: Runtime.evaluate before Runtime.runIfWaitingForDebugger),
 * takes the binding the monitor added (and removes it from the global object, so page scripts do not
 * find it by name), and wraps send. Each message on an open socket is reported through the binding as
 * {n, d, url, size, text | b64 | blob, cut} (d: 1 when the message waits for an answer; a message past
 * 1 MiB is reported from its start, cut: true, so no report outgrows a CDP message). Without websocket guard rules (defer 0) the real send follows at
 * once. With them the message waits in a queue until the monitor calls the release function
 * (release name, a random non-enumerable global) with (key, n, 1) to send it or (key, n, 0) to drop it —
 * key, random too, lives only in the hook's closure, so a page that finds the function cannot release a
 * message the monitor holds; the
 * monitor answers in the order the messages came, so a socket's messages keep their order. Meanwhile
 * bufferedAmount counts the waiting bytes, as it would count bytes not yet on the wire; a dropped
 * message's bytes leave it as if they had gone. (key, 0, 2) ends the waiting: the monitor is leaving, and
 * nobody would answer; later messages are reported and sent at once. send on a socket that is not open keeps its native
 * behaviour (CONNECTING throws, CLOSING and CLOSED discard). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "websockets.h"

static const char hook_js[] =
	"(function(){\n"
	"var G=typeof globalThis!=='undefined'?globalThis:self,B='%s',R='%s',K='%s',DEFER=%d;\n"
	"var bind=G[B];\n"
	"if(typeof bind!=='function'||typeof G.WebSocket!=='function'||Object.prototype.hasOwnProperty.call(G,R))return;\n"
	"try{delete G[B];}catch(e){}\n"
	"var P=G.WebSocket.prototype,real=P.send,stringify=JSON.stringify;\n"
	"var st=Object.getOwnPropertyDescriptor(P,'readyState'),ud=Object.getOwnPropertyDescriptor(P,'url');\n"
	"var bd=Object.getOwnPropertyDescriptor(P,'bufferedAmount');\n"
	"var pending=new Map(),waiting=new WeakMap(),next=0;\n"
	"function b64(u8){var s='',i;for(i=0;i<u8.length;i+=32768)s+=String.fromCharCode.apply(null,u8.subarray(i,i+32768));return btoa(s);}\n"
	"var CAP=1048576;\n"
	"function describe(d){\n"
	" var u8;\n"
	" if(typeof d==='string')return{text:d.length>CAP?d.slice(0,CAP):d,cut:d.length>CAP,size:new TextEncoder().encode(d).length};\n"
	" if(d instanceof ArrayBuffer)u8=new Uint8Array(d);\n"
	" else if(ArrayBuffer.isView(d))u8=new Uint8Array(d.buffer,d.byteOffset,d.byteLength);\n"
	" if(u8)return{b64:b64(u8.subarray(0,CAP)),cut:u8.length>CAP,size:u8.length};\n"
	" if(typeof Blob==='function'&&d instanceof Blob)return{blob:true,size:d.size};\n"
	" var t=String(d);return{text:t.slice(0,CAP),cut:t.length>CAP,size:new TextEncoder().encode(t).length};\n"
	"}\n"
	"function send(data){\n"
	" if(!st||!ud||st.get.call(this)!==1)return real.call(this,data);\n"
	" var m,n=++next;\n"
	" try{m=describe(data);m.n=n;m.d=DEFER;m.url=ud.get.call(this);bind(stringify(m));}catch(e){return real.call(this,data);}\n"
	" if(!DEFER)return real.call(this,data);\n"
	" pending.set(n,{ws:this,data:data,size:m.size});\n"
	" waiting.set(this,(waiting.get(this)||0)+m.size);\n"
	"}\n"
	"Object.defineProperty(G,R,{value:function(k,n,ok){\n"
	" if(k!==K)return;\n"
	" if(ok===2){DEFER=0;return;}\n"
	" var p=pending.get(n);if(!p)return;pending.delete(n);\n"
	" waiting.set(p.ws,(waiting.get(p.ws)||0)-p.size);\n"
	" if(ok)real.call(p.ws,p.data);\n"
	"}});\n"
	"Object.defineProperty(P,'send',{value:send,writable:true,configurable:true,enumerable:true});\n"
	"if(DEFER&&bd&&bd.get)Object.defineProperty(P,'bufferedAmount',{get:function(){return bd.get.call(this)+(waiting.get(this)||0);},configurable:true,enumerable:true});\n"
	"})();\n";

int kn_websocket_hook_source(char **out, const char *binding, const char *release, const char *key,
                             int defer)
{
	size_t n = sizeof hook_js + strlen(binding) + strlen(release) + strlen(key) + 8;
	char *s = malloc(n);
	*out = s;
	if (!s)
		return KN_ENOMEM;
	snprintf(s, n, hook_js, binding, release, key, defer ? 1 : 0);
	return 0;
}
