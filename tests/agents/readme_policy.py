"""readme_policy.py — the scripted `my_policy` the README's Selenium agent skeleton imports in
tests/integration/run.sh (scenario readme): decide(intent, driver) walks shop-red-runner-cart one
action per call (search, open the Red Runner, size 9, add to cart), then answers "added"."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait


def _wait(d):
    return WebDriverWait(d, 15)


def _search(d):
    d.find_element(By.ID, "q").send_keys("red running shoes", Keys.ENTER)
    _wait(d).until(EC.url_contains("search.html"))


def _open(d):
    _wait(d).until(EC.element_to_be_clickable((By.LINK_TEXT, "Red Runner"))).click()
    _wait(d).until(EC.url_matches(r"item\.html\?id=3$"))


def _size(d):
    Select(_wait(d).until(EC.presence_of_element_located((By.ID, "size")))).select_by_value("9")


def _add(d):
    d.find_element(By.ID, "add-to-cart").click()
    _wait(d).until(EC.visibility_of_element_located((By.ID, "added")))


_PLAN = [_search, _open, _size, _add]
_step = 0


def decide(intent, driver):
    global _step
    if _step < len(_PLAN):
        _step += 1
        return "act", _PLAN[_step - 1]
    return "answer", "added"
