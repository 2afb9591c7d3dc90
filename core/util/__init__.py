"""Small helpers with no domain of their own: regular expressions compiled on
first use (:mod:`.lazyre`) and key-sharing dictionaries (:mod:`.sharedkeys`)."""

