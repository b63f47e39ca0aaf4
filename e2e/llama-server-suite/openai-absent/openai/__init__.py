# Stands in for openai-python where it cannot be installed (Debian ships no python3-openai):
# the suite's files import it at the top, and most of their tests never use it. The runner puts
# this folder on the path only when the real package is missing; a test that does use the
# client then fails with this error, and the runner files it under "needs openai-python".
class OpenAI:
    def __init__(self, *args, **kwargs):
        raise ModuleNotFoundError("openai-python is not installed (the runner's stand-in for it)")
