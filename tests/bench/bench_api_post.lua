-- bench_api_post.lua — wrk script for bench_api.sh: POST one trajectory event per request to
-- /api/runs/{id}/events of an external run (the path and token come from the environment).
wrk.method = "POST"
wrk.path = os.getenv("KN_BENCH_PATH")
wrk.headers["Authorization"] = "Bearer " .. os.getenv("KN_BENCH_TOKEN")
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"t":1.5,"type":"navigate","url":"http://127.0.0.1:8100/shop/search.html?q=red+shoes"}'
