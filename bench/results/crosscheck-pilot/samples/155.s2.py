def even_odd_count(num):
    # Convert the number to string to easily iterate over each digit
    str_num = str(num)
    # Initialize counters for even and odd digits
    even_count, odd_count = 0, 0
    
    # Iterate over each character in the string representation of the number
    for char in str_num:
        # Convert character back to integer to check if it's even or odd
        digit = int(char)
        # If the digit is even, increment even_counter
        if digit % 2 == 0:
            even_count += 1
        # If the digit is odd, increment odd_counter
        else:
            odd_count += 1
    
    # Return a tuple containing the counts of even and odd digits
    return (even_count, odd_count)
