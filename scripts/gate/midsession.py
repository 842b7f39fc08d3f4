#!/usr/bin/env python3
"""Off-topic prompts mid-session: for each repository checkout, three real
change requests are sent as prompts in one session, then every off-topic
prompt in that same session; any code injected for an off-topic prompt is
a false positive (the prompt gate must not let carried-over triggers through).

  midsession.py --cmd bin/ctxls --root CHECKOUT --cases CASES.jsonl --offtopic offtopic.txt
"""
import argparse, json, os, subprocess, time

def hook(cmd, root, session, prompt, home):
    payload = json.dumps({"session_id": session, "cwd": root, "hook_event_name": "UserPromptSubmit",
                          "prompt": prompt, "transcript_path": "/dev/null"})
    p = subprocess.run([cmd, "hook", "user-prompt-submit"], input=payload, capture_output=True, text=True,
                       cwd=root, timeout=60, env=dict(os.environ, HOME=home))
    if not p.stdout.strip():
        return ""
    return (json.loads(p.stdout).get("hookSpecificOutput") or {}).get("additionalContext") or ""

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--offtopic", required=True)
    ap.add_argument("--sessions", type=int, default=3)
    a = ap.parse_args()
    cases = [json.loads(l) for l in open(a.cases)]
    off = [l.strip() for l in open(a.offtopic) if l.strip() and not l.startswith("#")]
    home = os.path.join("/tmp", "midsession-home")
    os.makedirs(home, exist_ok=True)
    asked = injected = 0
    for s in range(a.sessions):
        session = "mid-%d-%d" % (s, time.monotonic_ns())
        code = [c["query"] for c in cases[s * 3:(s + 1) * 3]]
        warm = sum(1 for q in code if hook(a.cmd, a.root, session, q, home))
        for q in off:
            asked += 1
            if "\u2014 " in hook(a.cmd, a.root, session, q, home):
                injected += 1
                print("injected:", q)
        print("session %d: %d of 3 code prompts got code" % (s, warm))
    print("%s: %d off-topic prompts asked mid-session, %d got code (%.3f)" % (a.root, asked, injected, injected / max(1, asked)))

if __name__ == "__main__":
    main()
