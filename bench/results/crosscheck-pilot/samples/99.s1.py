def closest_integer(value):
    # Convert the string to a float
    num = float(value)
    
    # Check if the number is positive or negative
    if num > 0:
        # If positive, round to the nearest integer
        return round(num)
    else:
        # If negative, round away from zero to the nearest even integer
        return int(num + 0.5 if num > 0 else num - 0.5)
