"""Words: text -> index terms and question concepts, and token counting.

`analysis.Analyzer` is the entry point. It folds and splits text (`tokenise`), guesses a
passage's language from its stop words (`language`), stems (`stemming`), and turns a
question into concepts (`concepts`) with the glossary's translations (`glossary`) and
dictionary forms of inflected words (`inflection`). The word lists live in `docai/data/`
(`wordlists` reads them; `stopwords` and `glossary` hold them). `names` finds multi-word
names in a question; `tokens` counts tiktoken tokens for chunking and prompts.
"""
