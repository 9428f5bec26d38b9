-- Version 2 of every marketplace entry: an optional field left empty drops its whole phrase (a
-- section, {#field} ... {/field}) instead of rendering a stand-in word into the sentence (due no due
-- date). Fields are unchanged, and memories made with version 1 keep their text and version.
UPDATE "marketplace_template" AS m SET "format" = v."format", "version" = '2', "updated_at" = now()
FROM (VALUES
  ('meeting-notes', 'Meeting "{title}" on {date}{#attendees} with {attendees}{/attendees}. Summary: {summary}{#decisions} Decisions: {decisions}.{/decisions}{#action_items} Action items: {action_items}.{/action_items}'),
  ('one-on-one', 'One-on-one with {person} on {date}. Topics: {topics}.{#feedback} Feedback: {feedback}.{/feedback}{#follow_ups} Follow-ups: {follow_ups}.{/follow_ups}'),
  ('customer-profile', 'Customer {company}{#industry} ({industry}){/industry}{#plan} on plan {plan}{/plan}{#seats} with {seats} seats{/seats}.{#primary_contact} Primary contact: {primary_contact}.{/primary_contact}{#preferences} Preferences: {preferences}.{/preferences}{#notes} Notes: {notes}.{/notes}'),
  ('contact', 'Contact {full_name}{#role}, {role}{/role}{#organization} at {organization}{/organization}.{#email} Email {email}.{/email}{#phone} Phone {phone}.{/phone}{#how_we_met} {how_we_met}{/how_we_met}'),
  ('support-ticket', 'Support ticket {ticket_id} from {customer}: {subject}.{#severity} Severity {severity}.{/severity}{#status} Status {status}.{/status} Reported: {description}{#resolution} Resolution: {resolution}.{/resolution}'),
  ('product-feedback', 'Feedback on {product}{#customer} from {customer}{/customer}{#source} via {source}{/source}: "{feedback}"{#sentiment} Sentiment: {sentiment}.{/sentiment}{#rating} Rating: {rating}.{/rating}{#requested_change} Requested change: {requested_change}.{/requested_change}'),
  ('research-note', 'Research note on {topic}: {finding}{#source} Source: {source}.{/source}{#confidence} Confidence: {confidence}.{/confidence}{#tags} Tags: {tags}.{/tags}{#open_questions} Open questions: {open_questions}.{/open_questions}'),
  ('task', 'Task "{title}"{#owner} owned by {owner}{/owner}{#due_date}, due {due_date}{/due_date}{#priority}, priority {priority}{/priority}{#status}, status {status}{/status}.{#details} {details}{/details}'),
  ('decision-record', 'Decision "{title}"{#status} ({status}){/status}. Context: {context}{#options} Options: {options}.{/options} Decision: {decision}{#consequences} Consequences: {consequences}.{/consequences}'),
  ('incident-report', 'Incident {title} ({severity}){#started_at}, started {started_at}{/started_at}{#resolved_at}, resolved {resolved_at}{/resolved_at}. Impact: {impact}{#root_cause} Root cause: {root_cause}.{/root_cause}{#actions} Actions: {actions}.{/actions}'),
  ('recipe', 'Recipe for {dish}{#servings}, serves {servings}{/servings}{#prep_minutes}, {prep_minutes} minutes{/prep_minutes}. Ingredients: {ingredients}. Steps: {steps}.{#notes} Notes: {notes}.{/notes}'),
  ('travel-plan', 'Trip to {destination} from {start_date}{#end_date} to {end_date}{/end_date}.{#travelers} Travelers: {travelers}.{/travelers}{#bookings} Bookings: {bookings}.{/bookings}{#notes} Notes: {notes}.{/notes}'),
  ('job-candidate', 'Candidate {candidate} for {role}{#stage}, stage {stage}{/stage}.{#strengths} Strengths: {strengths}.{/strengths}{#concerns} Concerns: {concerns}.{/concerns}{#interviewers} Interviewers: {interviewers}.{/interviewers}{#recommendation} Recommendation: {recommendation}.{/recommendation}')
) AS v("id", "format")
WHERE m."id" = v."id";
