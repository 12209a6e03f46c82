from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """{{ row.metrics|get_item:name }}: a dict value by a key that is not an identifier."""
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None
