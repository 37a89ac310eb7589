"""`python -m archgen`: the command line (`archgen.cli`), as the `archgen` console script runs it."""

from archgen.cli import main

if __name__ == "__main__":
    main()
