"""Every user-facing string, in Portuguese (pt-BR), so wording changes touch one package.

Callers format with str.format(**fields) and import this package only (`from docai import
messages`; `messages.NAME`). One module per pipeline stage; a new string goes in the module
of the stage that shows it.
"""

from docai.messages.answer import *  # noqa: F403
from docai.messages.cli import *  # noqa: F403
from docai.messages.index import *  # noqa: F403
from docai.messages.llm import *  # noqa: F403
from docai.messages.loading import *  # noqa: F403
from docai.messages.log import *  # noqa: F403
from docai.messages.mcp import *  # noqa: F403
from docai.messages.question import *  # noqa: F403
from docai.messages.repl_tools import *  # noqa: F403
from docai.messages.retrieval import *  # noqa: F403
from docai.messages.store import *  # noqa: F403
