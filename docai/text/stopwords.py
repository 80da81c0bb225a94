"""Portuguese and English stop words, already case- and accent-folded.

Why our own lists: questions are short, so one noise word ("como", "what", "posso") that
happens to be rare in the docs can outrank the word that matters. The lists therefore
cover not only articles, prepositions, pronouns and auxiliaries but also question words
and the verbs people wrap questions in ("como faço para...", "how do I..."). Content verbs
that name an action in the docs (instalar, configurar, install, run) are *not* here.

Words are stored folded (no accents, lower case) because analysis folds before looking
them up: "não" and "nao" are the same stop word. The two language sets are also used to
guess the language of a passage (see `analysis`), so words common to both languages
("a", "do", "no", "se") are kept out of the language-specific sets.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PORTUGUESE: frozenset[str] = _words(
    """
    a ao aos as o os um uma uns umas
    de do da dos das dum duma num numa nuns numas em no na nos nas
    por pelo pela pelos pelas para pra pro pras pros com sem sob sobre entre ate desde
    contra perante apos ante tras durante mediante conforme via
    e ou mas nem porem contudo todavia entretanto logo portanto pois porque que se
    caso quando enquanto embora como onde aonde donde qual quais quanto quanta quantos
    quantas quem cujo cuja cujos cujas oque
    eu tu ele ela nos vos eles elas voce voces me mim comigo te ti contigo lhe lhes
    se si consigo nosso nossa nossos nossas vosso vossa vossos vossas meu minha meus minhas
    teu tua teus tuas seu sua seus suas dele dela deles delas
    este esta estes estas isto esse essa esses essas isso aquele aquela aqueles aquelas
    aquilo deste desta destes destas disto desse dessa desses dessas disso daquele
    daquela daqueles daquelas daquilo neste nesta nestes nestas nisto nesse nessa nesses
    nessas nisso naquele naquela naqueles naquelas naquilo
    outro outra outros outras mesmo mesma mesmos mesmas tal tais todo toda todos todas
    tudo nada algo alguem ninguem algum alguma alguns algumas nenhum nenhuma cada
    qualquer quaisquer certo certa certos certas varios varias muito muita muitos muitas
    pouco pouca poucos poucas tanto tanta tantos tantas demais
    ser sou es e somos sao era eras eramos eram fui foi fomos foram fora seja sejam
    sejamos fosse fossem for forem sera serao seria seriam sido sendo
    estar estou esta estamos estao estava estavam estive esteve estiveram esteja estejam
    estivesse estivessem estiver estiverem estando
    ter tenho tem temos tinha tinham tive teve tiveram tenha tenham tivesse tiver terao
    teria tido tendo haver ha havia houve haja hao havera
    fazer faco faz fazem fazemos fiz fez fizeram faca facam feito fazendo
    poder posso pode podem podemos pude pudesse poderia poderiam possa possam podendo
    dever devo deve devem devemos deveria deveriam
    ir vou vai vamos vao ia iam indo
    querer quero quer queria gostaria preciso precisa precisam precisamos
    saber sei sabe
    nao sim ja ainda tambem so apenas mais menos muito bem mal assim entao agora aqui ai
    ali la ca sempre nunca jamais talvez quase bastante tao
    ok ola oi obrigado obrigada favor
    conseguir consigo consegue conseguem conseguimos da dar jeito maneira forma coisa coisas
    existe existem quiser quiserem quisesse ficar fica ficam ficou fique dentro vez vezes alem
    ta tava tavam vc vcs pq tbm ne deu gente
    """
)

ENGLISH: frozenset[str] = _words(
    """
    a an the and or but nor so yet if then else than because as while although though
    of to in on at by for with without from into onto upon out off over under about
    above below between through during before after since until till against among
    across along around behind beyond within per via
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he
    him his himself she her hers herself it its itself they them their theirs themselves
    this that these those there here
    what which who whom whose when where why how whatever whichever whoever wherever
    whenever however
    be am is are was were been being
    have has had having do does did doing done
    can could may might must shall should will would ought need needs
    not no yes nt dont doesnt didnt isnt arent wasnt werent cant cannot couldnt wont
    whats hows wheres whys whos
    wouldnt shouldnt havent hasnt hadnt im ive youre youve lets thats theres
    all any both each few more most other some such only own same too very just also
    again further once ever never always already still even much many lot lots
    one ones something anything nothing everything someone anyone everyone
    please thanks thank hi hello ok okay tell explain know want
    eg ie etc
    """
)

STOP_WORDS: frozenset[str] = PORTUGUESE | ENGLISH

# Words that wrap a question ("is there a way to", "is it possible", "what now?") but never
# name its subject, in either language. Dropped from questions only: in a passage they are
# ordinary prose and cost nothing, but in a short question a rare one ("possible") would
# both pull the ranking towards passages that happen to use it and, when the docs lack
# it, lower the coverage that decides refusal.
QUESTION_SCAFFOLDING: frozenset[str] = _words(
    """
    way ways possible possibly able now got really actually somehow anyway
    possivel possiveis verdade
    """
)

# Phrases that wrap a question the same way but whose words may name a subject elsewhere:
# Portuguese asks what a thing is for with "para que serve X?", and "serve" alone is also
# a command name (`mkdocs serve`). Dropped from questions as a whole phrase only.
QUESTION_SCAFFOLDING_PHRASES: tuple[str, ...] = (
    "para que serve", "para que servem", "pra que serve", "pra que servem",
)

# Words that only one language uses: counting them tells which stemmer suits a passage.
PORTUGUESE_ONLY: frozenset[str] = PORTUGUESE - ENGLISH
ENGLISH_ONLY: frozenset[str] = ENGLISH - PORTUGUESE
