from codur.cli import main

main()
