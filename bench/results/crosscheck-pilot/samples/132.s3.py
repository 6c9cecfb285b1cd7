def is_nested(string):
    stack = []
    has_nested = False
    
    for char in string:
        if char == '[':
            stack.append(char)
        elif char == ']':
            if stack:
                stack.pop()
                if stack:
                    has_nested = True
    
    return has_nested
