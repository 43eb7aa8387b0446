import os

REQUESTS_TIMEOUT = int(os.getenv("SHOP_REQUESTS_TIMEOUT", 15))
LOG_LEVEL = os.environ.get("SHOP_LOG_LEVEL", "info")
