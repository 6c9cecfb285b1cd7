def anti_shuffle(s):
    """
    Write a function that takes a string and returns an ordered version of it.
    Ordered version of string, is a string where all words (separated by space)
    are replaced by a new word where all the characters arranged in
    ascending order based on ascii value.
    Note: You should keep the order of words and blank spaces in the sentence.

    For example:
    anti_shuffle('Hi') returns 'Hi'
    anti_shuffle('hello') returns 'ehllo'
    anti_shuffle('Hello World!!!') returns 'Hello !!!Wdlor'
    """
    # Split the string into words
    words = s.split()
    # Initialize an empty list to store the ordered words
    ordered_words = []
    # Iterate over each word
    for word in words:
        # Sort the characters of the word in ascending order
        ordered_word = ''.join(sorted(word))
        # Append the ordered word to the list
        ordered_words.append(ordered_word)
    # Join the ordered words back into a string
    ordered_string = ' '.join(ordered_words)
    return ordered_string
