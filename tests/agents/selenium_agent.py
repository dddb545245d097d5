#!/usr/bin/env python3
"""selenium_agent.py — an agent for `keynode run` written against Selenium for Python (Debian's
python3-selenium and chromium-driver): chromedriver attaches to keynode's browser through the
debuggerAddress option (host:port of KEYNODE_CDP_URL), switches to the tab showing
KEYNODE_START_URL and solves two tasks of tests/sites/tasks.yaml by script:
  shop-red-runner-cart  search, open the Red Runner, size 9, add to cart
  spa-mail-dark-theme   Settings, theme dark, Save
It never calls quit() (that would end keynode's browser); chromedriver is stopped with service.stop().
Any other task: exit 4; a failed action: exit 1."""
import os
import sys
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

env = os.environ


def shop_cart(d, wait):
    box = d.find_element(By.ID, "q")
    box.send_keys("red running shoes", Keys.ENTER)
    wait.until(EC.url_contains("search.html"))
    wait.until(EC.element_to_be_clickable((By.LINK_TEXT, "Red Runner"))).click()
    wait.until(EC.url_matches(r"item\.html\?id=3$"))
    Select(wait.until(EC.presence_of_element_located((By.ID, "size")))).select_by_value("9")
    d.find_element(By.ID, "add-to-cart").click()
    wait.until(EC.visibility_of_element_located((By.ID, "added")))


def mail_dark(d, wait):
    wait.until(EC.element_to_be_clickable((By.ID, "nav-settings"))).click()
    wait.until(EC.url_contains("#/settings"))
    Select(wait.until(EC.visibility_of_element_located((By.ID, "theme")))).select_by_value("dark")
    d.find_element(By.ID, "save-settings").click()


SOLVERS = {"shop-red-runner-cart": shop_cart, "spa-mail-dark-theme": mail_dark}


def main():
    solve = SOLVERS.get(env.get("KEYNODE_TASK_ID"))
    if not solve:
        print("no plan for", env.get("KEYNODE_TASK_ID"))
        return 4
    opts = webdriver.ChromeOptions()
    opts.add_experimental_option("debuggerAddress", urlparse(env["KEYNODE_CDP_URL"]).netloc)
    service = Service(executable_path=env.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    d = webdriver.Chrome(service=service, options=opts)
    try:
        for h in d.window_handles:
            d.switch_to.window(h)
            if d.current_url == env["KEYNODE_START_URL"]:
                break
        print("task", env["KEYNODE_TASK_ID"], "on", d.current_url, flush=True)
        solve(d, WebDriverWait(d, 10))
        print("done")
        return 0
    except Exception as e:  # any failed action: the run records how far it got
        print("failed:", str(e).splitlines()[0] if str(e) else type(e).__name__)
        return 1
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
