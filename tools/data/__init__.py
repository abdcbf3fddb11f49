"""The data pipeline: corpora from Debian packages and npm, the word tokenizer, the splits (build.sh)."""
