#!/usr/bin/python3
"""Seconds headless Chromium takes to draw a `rocelab report` page (bench/run.sh part 9).

    report_load.py PAGE.html FRAGMENT TMPDIR

Loads file://PAGE.html#FRAGMENT and waits (at most 600 s) for the page's ready marker,
document.documentElement.dataset.rlReady == "1"; prints "load S" (seconds from the
navigation to the marker) and "arrows N" (.rl-arrow elements in the document then), or
"load timeout". Debian's /usr/bin/python3 with python3-selenium and chromedriver; Chromium's
profile and home are in TMPDIR, and every process it starts (its session) ends with it.
"""
import os
import signal
import sys
import time


def main(page, frag, tmp):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,1600", "--no-first-run", "--disable-extensions",
              "--user-data-dir=" + os.path.join(tmp, "profile")):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        d.set_page_load_timeout(600)
        d.get("about:blank")
        t0 = time.monotonic()
        d.get("file://" + os.path.abspath(page) + "#" + frag)
        try:
            WebDriverWait(d, 600, poll_frequency=0.05).until(
                lambda x: x.execute_script("return document.documentElement.dataset.rlReady") == "1")
        except Exception:
            print("load timeout")
            return 1
        print("load %.3f" % (time.monotonic() - t0))
        print("arrows %d" % d.execute_script("return document.querySelectorAll('.rl-arrow').length"))
    finally:
        d.quit()
    return 0


if __name__ == "__main__":
    os.setsid()
    try:
        rc = main(*sys.argv[1:4])
    finally:
        me, sid = os.getpid(), os.getsid(0)
        for p in os.listdir("/proc"):
            try:
                if p.isdigit() and int(p) != me and os.getsid(int(p)) == sid:
                    os.kill(int(p), signal.SIGKILL)
            except OSError:
                pass
    sys.exit(rc)
