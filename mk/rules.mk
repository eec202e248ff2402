# mk/rules.mk: the one compile rule. Set DIR (output subdirectory) first.
# Header dependencies are generated (-MMD -MP), never listed by hand.

$(B)/$(DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(B)/$(DIR)/*.d $(B)/$(DIR)/*/*.d)
.SECONDARY:
