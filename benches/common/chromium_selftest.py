"""Runs an ftl HTML report's #selftest in headless Chromium over the DevTools pipe and prints the JSON the page
writes into <pre id="selftest">. Unlike `chromium --dump-dom --virtual-time-budget`, the page runs on the real
clock here, so its `first_paint_ms` and `zoom_ms` are real times. Standard library only.

Usage: python3 chromium_selftest.py file:///abs/report.html#selftest [timeout_s]"""
import json, os, subprocess, sys, time

url, timeout = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 60
r_cmd, w_cmd = os.pipe()
r_res, w_res = os.pipe()
def fds():
    # Chromium reads commands from fd 3 and writes answers to fd 4: the pipes' ends moved there (via fresh
    # numbers, as either may already be 3 or 4), inheritable.
    a, b = os.dup(r_cmd), os.dup(w_res)
    os.dup2(a, 3)
    os.dup2(b, 4)
p = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                      "--window-size=1600,1000", "about:blank"], preexec_fn=fds, close_fds=False,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(r_cmd); os.close(w_res)
out = os.fdopen(w_cmd, "wb", buffering=0)
inp = os.fdopen(r_res, "rb", buffering=0)
buf = b""
ids = iter(range(1, 1 << 30))
def send(method, params=None, session=None):
    i = next(ids)
    msg = {"id": i, "method": method, "params": params or {}}
    if session: msg["sessionId"] = session
    out.write(json.dumps(msg).encode() + b"\0")
    return i
def wait(i):
    global buf
    while True:
        while b"\0" in buf:
            raw, buf = buf.split(b"\0", 1)
            m = json.loads(raw)
            if m.get("id") == i:
                if "error" in m: raise SystemExit(f"cdp: {m['error']}")
                return m["result"]
        chunk = inp.read(65536)
        if not chunk: raise SystemExit("cdp: chromium closed the pipe")
        buf += chunk
try:
    target = wait(send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    session = wait(send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    wait(send("Page.navigate", {"url": url}, session))
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = wait(send("Runtime.evaluate", {"expression": "document.getElementById('selftest') ? document.getElementById('selftest').textContent : ''", "returnByValue": True}, session))
        text = r["result"].get("value") or ""
        if text:
            print(text)
            break
        time.sleep(0.1)
    else:
        raise SystemExit("cdp: the self-test did not finish")
finally:
    try: send("Browser.close")
    except Exception: pass
    try: p.wait(10)
    except Exception: p.kill()
