"""The trainer: `/usr/bin/python3 -m tools.train --direction en-es ...` trains one direction (train.py),
`--languages bg,da,...` one Transformer for English and every listed language (train_multi.py).
train.py's options (--help); run from the repository's root."""
from tools.train import train, train_multi


def main():
    args = train.parse_args()
    if args.languages:
        train_multi.main(args)
    else:
        train.main(args)


if __name__ == "__main__":
    main()
