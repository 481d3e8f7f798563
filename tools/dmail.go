package tools

import (
	"context"
	"strings"
)

// DMailer delivers a D-Mail: a message to an earlier checkpoint of the agent's own
// conversation. The agent implements it.
type DMailer interface {
	SendDMail(message string, checkpoint int) error
}

type dmailArgs struct {
	Message      string `json:"message" description:"What your past self should know: what you tried, what failed and why, what to do instead. Be specific; it is all that survives."`
	CheckpointID int    `json:"checkpoint_id" description:"The id N of a <system>CHECKPOINT N</system> marker in this conversation to return to."`
}

// NewSendDMail returns the SendDMail tool.
func NewSendDMail(env Env) Tool {
	return New("SendDMail",
		`Send a message back in time to an earlier checkpoint of this conversation. After the current step, the conversation is rewound to the <system>CHECKPOINT N</system> marker you name, everything after it is forgotten, and your message appears there as a note from your future self. Use it when a long exploration turned out to be a dead end, so that your past self can skip it with the lesson learned and the context stays small. Only the conversation is rewound: files you changed, commands you ran and their effects stay as they are now, so mention in the message anything on disk your past self must know about. One D-Mail per step.`,
		Facts{RootOnly: true, OptIn: true},
		func(_ context.Context, a dmailArgs) (Result, error) {
			if strings.TrimSpace(a.Message) == "" {
				return Errorf("message is empty").WithKimi(kimiDMailFailed("message is empty"), ""), nil
			}
			if err := env.DMail.SendDMail(a.Message, a.CheckpointID); err != nil {
				return Errorf("D-Mail not sent: %v", err).WithKimi(kimiDMailFailed(err.Error()), ""), nil
			}
			return Text("D-Mail sent. The conversation will be rewound after this step.").WithKimi(kimiDMailSent, ""), nil
		})
}

// kimiDMailSent is what Kimi CLI's SendDMail returns on success (tools/dmail/__init__.py), for
// its message lines. Kimi words it for the model, which reads it only if the rewind did not
// happen; a script reading the lines sees it after every D-Mail sent.
const kimiDMailSent = "If you see this message, the D-Mail was NOT sent successfully. " +
	"This may be because some other tool that needs approval was rejected."

// kimiDMailFailed words a refused D-Mail as Kimi CLI's SendDMail does.
func kimiDMailFailed(why string) string { return "Failed to send D-Mail. Error: " + why }
