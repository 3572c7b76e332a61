"""Walks RevenueDot's /docs in headless Chromium, as a reader would: the index, every page it
links, each page's sections, its example's details, and its Markdown view. Fails (exit 1, one
line) on the first thing that is not there; prints "ok N pages" otherwise.

Usage: python3 docs_pages.py BASE_URL   (e.g. http://127.0.0.1:8080)
"""
import os
import sys
import tempfile
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

SECTIONS = ["quick-facts", "triggers", "what-to-do", "example", "revenuedot", "source"]


def fail(message):
    print("fail: " + message)
    sys.exit(1)


def main(base):
    # Chromium's profile and sockets go in a folder of this run's, removed when it ends (or
    # fails), not in the system temporary directory where they would stay.
    with tempfile.TemporaryDirectory(prefix="docs-browser-") as scratch:
        os.environ["TMPDIR"] = scratch
        walk(base, scratch)


def walk(base, scratch):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--user-data-dir=" + os.path.join(scratch, "profile")]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(base + "/docs")
        if "App Store Server Notifications V2" not in driver.title:
            fail("the index's title is %r" % driver.title)
        groups = [h.text for h in driver.find_elements(By.TAG_NAME, "h2")]
        expected = ["Starts access", "Keeps access", "Changes the plan", "Ends access", "Money back", "Informational"]
        if groups != expected:
            fail("the index's groups are %r" % groups)
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "li a")]
        if len(links) != 23:
            fail("the index links %d pages, not 23" % len(links))
        for link in links:
            driver.get(link)
            heading = driver.find_element(By.TAG_NAME, "h1").text
            if not heading.startswith("What does the App Store notification "):
                fail("%s: its heading is %r" % (link, heading))
            for section in SECTIONS:
                if not driver.find_elements(By.ID, section):
                    fail("%s has no %s section" % (link, section))
            facts = driver.find_elements(By.CSS_SELECTOR, "table tr")
            if len(facts) != 6 or not facts[0].is_displayed():
                fail("%s: quick facts has %d rows" % (link, len(facts)))
            code = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "pre code.language-js, pre code.language-swift")]
            if len(code) != 2 or not all(code):
                fail("%s: the example code is not shown in both languages" % link)
            if "Run-checked" not in driver.find_element(By.CSS_SELECTOR, "p.checked").text:
                fail("%s: the example is not marked run-checked" % link)
            details = driver.find_elements(By.TAG_NAME, "details")
            if not details:
                fail("%s: no example notification" % link)
            details[0].find_element(By.TAG_NAME, "summary").click()
            if details[0].get_attribute("open") is None:
                fail("%s: the example notification does not open" % link)
            # Self-contained: the page loaded nothing besides itself.
            resources = driver.execute_script("return performance.getEntriesByType('resource').length")
            if resources:
                fail("%s loaded %d other resources" % (link, resources))
            markdown = driver.find_element(By.LINK_TEXT, "View as Markdown").get_attribute("href")
            with urllib.request.urlopen(markdown) as response:
                text = response.read().decode("utf-8")
                if not text.startswith("# " + heading):
                    fail("%s: its Markdown starts %r" % (link, text[:60]))
        # Readable on a phone: nothing wider than the screen (long names wrap, code scrolls). The
        # phone's screen is emulated: a headless window may not shrink below 500 px.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        for link in [base + "/docs"] + links:
            driver.get(link)
            width, inner = driver.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            if inner != 375:
                fail("%s: the emulated screen is %d px wide, not 375" % (link, inner))
            if width > inner:
                fail("%s is %d px wide in a %d px window" % (link, width, inner))
        print("ok %d pages" % len(links))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1])
